package io.floe.typed.protobuf;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/** Values written to a Parquet file with Iceberg's generic writer and read back by its reader. */
final class ParquetRoundTrip {

  private ParquetRoundTrip() {}

  /** Each value as the single column "value" of a row, read back. */
  static List<Object> roundTrip(Types.StructType type, List<Record> values, Path dir) {
    Schema schema = new Schema(Types.NestedField.optional(10_000, "value", type));
    File file = dir.resolve("values-" + System.nanoTime() + ".parquet").toFile();
    try {
      try (FileAppender<Record> appender =
          Parquet.write(Files.localOutput(file))
              .schema(schema)
              .createWriterFunc(GenericParquetWriter::create)
              .build()) {
        for (Record value : values) {
          Record row = GenericRecord.create(schema);
          row.set(0, value);
          appender.add(row);
        }
      }
      List<Object> read = new ArrayList<>();
      try (CloseableIterable<Record> rows =
          Parquet.read(Files.localInput(file))
              .project(schema)
              .createReaderFunc(s -> GenericParquetReaders.buildReader(schema, s))
              .build()) {
        rows.forEach(row -> read.add(row.get(0)));
      }
      if (!file.delete()) {
        throw new IOException("cannot delete " + file);
      }
      return read;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
