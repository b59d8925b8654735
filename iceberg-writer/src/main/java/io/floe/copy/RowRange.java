package io.floe.copy;

import org.apache.iceberg.StructLike;

/** {@code count} consecutive rows of one data file, starting at row {@code firstRow}. */
public record RowRange(String location, StructLike partition, long firstRow, long count) {}
