package io.floe.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Reads a few columns of one data file of a topic table, row by row in file order (row positions
 * are what position deletes point at), without the table's delete files applied.
 */
public final class FileColumns {
  private FileColumns() {}

  /** Calls {@code each} with every row of {@code file}, projected to {@code projection}. */
  public static void read(Table table, DataFile file, Schema projection, Consumer<Record> each) {
    if (file.format() != FileFormat.PARQUET) {
      throw new IllegalStateException(
          "Data file "
              + file.location()
              + " is "
              + file.format()
              + ", not Parquet: cannot read it");
    }
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(projection)
            .createReaderFunc(fs -> GenericParquetReaders.buildReader(projection, fs))
            .build()) {
      rows.forEach(each);
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + file.location() + " failed", e);
    }
  }
}
