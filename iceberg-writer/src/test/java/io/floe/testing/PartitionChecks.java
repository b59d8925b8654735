package io.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/** Checks that the rows of a data file lie in the file's partition. */
public final class PartitionChecks {
  private PartitionChecks() {}

  /**
   * Reads {@code file} of {@code table} back and asserts that each row's partition, computed by
   * Iceberg from the row, is the file's, and that it holds as many rows as it says; returns them.
   */
  public static long rowsInTheirFilesPartition(Table table, DataFile file) throws IOException {
    PartitionKey key = new PartitionKey(table.specs().get(file.specId()), table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    long rows = 0;
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(s -> GenericParquetReaders.buildReader(table.schema(), s))
            .build()) {
      for (Record row : records) {
        key.partition(wrapper.wrap(row));
        assertThat(same(key, file.partition()))
            .as("row at %s in %s", row, file.partition())
            .isTrue();
        rows++;
      }
    }
    assertThat(rows).isEqualTo(file.recordCount());
    return rows;
  }

  private static boolean same(StructLike a, StructLike b) {
    for (int i = 0; i < a.size(); i++) {
      if (!Objects.equals(a.get(i, Object.class), b.get(i, Object.class))) {
        return false;
      }
    }
    return a.size() == b.size();
  }
}
