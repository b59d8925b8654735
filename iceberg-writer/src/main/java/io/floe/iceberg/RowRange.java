package io.floe.iceberg;

import org.apache.iceberg.StructLike;

/** {@code count} consecutive rows of one data file, starting at row {@code firstRow}. */
record RowRange(String location, StructLike partition, long firstRow, long count) {}
