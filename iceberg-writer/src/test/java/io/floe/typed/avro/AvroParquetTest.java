package io.floe.typed.avro;

import static io.floe.typed.avro.AvroFixtures.avroBytes;
import static io.floe.typed.avro.AvroFixtures.buffer;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.avro.AvroFixtures.Bytes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.generic.GenericData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values decoded, written to Parquet by Iceberg and read back re-encode to the same bytes. */
class AvroParquetTest {
  @TempDir Path dir;

  @Test
  void everyTypeSurvivesParquet() throws Exception {
    AvroWriterSchema schema = AvroFixtures.everything();
    List<byte[]> payloads = new ArrayList<>();
    for (GenericData.Record datum : AvroFixtures.everythingData(schema.avroSchema())) {
      payloads.add(avroBytes(schema.avroSchema(), datum));
    }
    assertSurvivesParquet(schema, payloads, true);
  }

  @Test
  void normalisedValuesSurviveParquet() throws Exception {
    AvroWriterSchema schema =
        AvroFixtures.writerSchema(
            """
        {"type": "record", "name": "Odd", "fields": [
          {"name": "arr", "type": {"type": "array", "items": "int"}},
          {"name": "m", "type": {"type": "map", "values": "int"}},
          {"name": "f", "type": "float"},
          {"name": "d", "type": "double"},
          {"name": "s", "type": "string"},
          {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
          {"name": "u", "type": ["null", "int", "string"]}]}
        """);
    byte[] odd =
        new Bytes()
            .varint(-2)
            .varint(2)
            .varint(1)
            .varint(2)
            .varint(1)
            .varint(3)
            .varint(0)
            .varint(3)
            .string("z")
            .varint(1)
            .string("a")
            .varint(2)
            .string("z")
            .varint(3)
            .varint(0)
            .raw(0x01, 0x00, 0xc0, 0x7f)
            .raw(0x01, 0, 0, 0, 0, 0, 0xf8, 0x7f)
            .varint(2)
            .raw(0xc3, 0x28)
            .raw(0x82, 0x80, 0x00)
            .varint(0)
            .toByteArray();
    byte[] canonical =
        new Bytes()
            .varint(0)
            .varint(2)
            .string("q")
            .varint(1)
            .string("b")
            .varint(2)
            .varint(0)
            .raw(0, 0, 0x80, 0xff)
            .raw(0, 0, 0, 0, 0, 0, 0xf0, 0xff)
            .string("ok")
            .varint(-3_000)
            .varint(2)
            .string("x")
            .toByteArray();
    assertSurvivesParquet(schema, List.of(odd, canonical), false);
  }

  @Test
  void recursiveSubtreesAndBranchesSurviveParquet() throws Exception {
    AvroWriterSchema schema = AvroFixtures.writerSchema(AvroFixtures.LINKED);
    byte[] three =
        new Bytes()
            .varint(1)
            .string("a")
            .varint(1)
            .varint(2)
            .string("b")
            .varint(1)
            .varint(3)
            .string("c")
            .varint(0)
            .toByteArray();
    byte[] one = new Bytes().varint(9).string("z").varint(0).toByteArray();
    assertSurvivesParquet(schema, List.of(three, one), true);
  }

  @Test
  void mutatedPayloadsThatDecodeSurviveParquet() throws Exception {
    AvroWriterSchema schema = AvroFixtures.everything();
    PayloadCodec codec = AvroFixtures.codec(schema);
    List<GenericData.Record> data = AvroFixtures.everythingData(schema.avroSchema());
    Random random = new Random(42);
    List<byte[]> decodable = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      byte[] payload = avroBytes(schema.avroSchema(), data.get(i % data.size()));
      payload[random.nextInt(payload.length)] = (byte) random.nextInt(256);
      try {
        codec.decode(buffer(payload));
        decodable.add(payload);
      } catch (UndecodablePayloadException e) {
        // Stored raw only: nothing to write
      }
    }
    assertThat(decodable).hasSizeGreaterThan(100);
    assertSurvivesParquet(schema, decodable, false);
  }

  private void assertSurvivesParquet(
      AvroWriterSchema writerSchema, List<byte[]> payloads, boolean exact) throws Exception {
    // The table's own ids, not the writer schema's: binding is by name
    AtomicInteger ids = new AtomicInteger(100);
    Schema table =
        TypeUtil.assignFreshIds(
            new Schema(Types.NestedField.optional(10_000, "value", writerSchema.icebergType())),
            ids::incrementAndGet);
    Type column = table.findField("value").type();
    PayloadCodec codec = writerSchema.bind(column);
    List<Object> decoded = new ArrayList<>();
    for (byte[] payload : payloads) {
      Object value = codec.decode(buffer(payload));
      if (exact) {
        assertThat(codec.encode(value)).isEqualTo(payload);
      }
      decoded.add(value);
    }

    List<Object> readBack = writeAndRead(table, decoded);

    assertThat(readBack).hasSameSizeAs(decoded);
    for (int i = 0; i < decoded.size(); i++) {
      assertThat(codec.encode(readBack.get(i))).isEqualTo(codec.encode(decoded.get(i)));
    }
  }

  private List<Object> writeAndRead(Schema table, List<Object> values) throws IOException {
    File file = dir.resolve("values-" + System.nanoTime() + ".parquet").toFile();
    try (FileAppender<Record> appender =
        Parquet.write(Files.localOutput(file))
            .schema(table)
            .createWriterFunc(GenericParquetWriter::create)
            .build()) {
      for (Object value : values) {
        Record row = GenericRecord.create(table);
        row.set(0, value);
        appender.add(row);
      }
    }
    List<Object> readBack = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        Parquet.read(Files.localInput(file))
            .project(table)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table, fileSchema))
            .build()) {
      for (Record row : rows) {
        readBack.add(row.get(0));
      }
    }
    return readBack;
  }
}
