package io.floe.typed.avro;

import io.floe.typed.InvalidSchemaException;
import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Schemas, payloads written by Avro's own writer, and hand-made Avro bytes. */
final class AvroFixtures {
  static final String POINT =
      "{\"type\":\"record\",\"name\":\"Point\",\"namespace\":\"io.floe.test\",\"fields\":["
          + "{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"int\"}]}";

  /** Every type and logical type the mapping covers. */
  static final String EVERYTHING =
      """
      {"type": "record", "name": "Everything", "namespace": "io.floe.test", "fields": [
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "s", "type": "string"},
        {"name": "by", "type": "bytes"},
        {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "opt", "type": ["null", "string"]},
        {"name": "optLast", "type": ["long", "null"]},
        {"name": "choice", "type": ["null", "int", "string", "io.floe.test.Point"]},
        {"name": "nothing", "type": "null"},
        {"name": "arr", "type": {"type": "array", "items": "int"}},
        {"name": "m", "type": {"type": "map", "values": "double"}},
        {"name": "decB", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "decF", "type": {"type": "fixed", "name": "Dec8", "size": 8,
          "logicalType": "decimal", "precision": 18, "scale": 3}},
        {"name": "bigDec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 0}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tus", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsus", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "tsns", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
        {"name": "ltsms", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltsus", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "ltsns", "type": {"type": "long", "logicalType": "local-timestamp-nanos"}},
        {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
          {"name": "tags", "type": {"type": "array", "items": "string"}},
          {"name": "p", "type": ["null", "io.floe.test.Point"]}]}},
        {"name": "listOfMaps", "type": {"type": "array", "items": {"type": "map",
          "values": ["null", "io.floe.test.Point"]}}}
      ]}
      """;

  /** A linked list: the record refers to itself. */
  static final String LINKED =
      """
      {"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "int"},
        {"name": "label", "type": "string"},
        {"name": "next", "type": ["null", "Node"]}]}
      """;

  private AvroFixtures() {}

  static AvroWriterSchema writerSchema(String text, Map<String, String> references) {
    try {
      return (AvroWriterSchema) new AvroFormat().writerSchema(text, references, List.of());
    } catch (InvalidSchemaException e) {
      throw new AssertionError(e);
    }
  }

  static AvroWriterSchema writerSchema(String text) {
    return writerSchema(text, Map.of());
  }

  static AvroWriterSchema everything() {
    return writerSchema(EVERYTHING, Map.of("io.floe.test.Point", POINT));
  }

  static PayloadCodec codec(WriterSchema schema) {
    return schema.bind(schema.icebergType());
  }

  /** The bytes Avro's own writer gives a datum (base types for logical ones). */
  static byte[] avroBytes(Schema schema, Object datum) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    try {
      new GenericDatumWriter<>(schema).write(datum, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static ByteBuffer buffer(byte[] bytes) {
    return ByteBuffer.wrap(bytes);
  }

  /** Two values of {@link #EVERYTHING}: one with small values, one with edge values. */
  static List<GenericData.Record> everythingData(Schema schema) {
    return List.of(
        everythingDatum(schema, 1, "x", 0L, 0), everythingDatum(schema, -7, "ünïcödé ✓", -1L, 2));
  }

  static GenericData.Record everythingDatum(
      Schema schema, int n, String text, long ns, int choice) {
    Schema point = schema.getField("nested").schema().getField("p").schema().getTypes().get(1);
    GenericData.Record datum = new GenericData.Record(schema);
    datum.put("b", n > 0);
    datum.put("i", n == 1 ? Integer.MIN_VALUE : n);
    datum.put("l", n == 1 ? Long.MAX_VALUE : (long) n);
    datum.put("f", n == 1 ? -0.0f : 1.5f);
    datum.put("d", n == 1 ? Double.NaN : Double.MIN_VALUE);
    datum.put("s", text);
    datum.put("by", ByteBuffer.wrap(new byte[] {0, (byte) 255, 3}));
    datum.put("fx", new GenericData.Fixed(schema.getField("fx").schema(), new byte[] {1, 2, 3, 4}));
    datum.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "BLUE"));
    datum.put("opt", n == 1 ? null : text);
    datum.put("optLast", n == 1 ? 42L : null);
    datum.put("choice", choice == 0 ? null : choice == 1 ? 5 : pointDatum(point, n, 9));
    datum.put("arr", n == 1 ? List.of() : List.of(3, 1, 2));
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("zeta", 1.0);
    m.put("alpha", -2.5);
    m.put("mid", 0.0);
    datum.put("m", m);
    datum.put("decB", ByteBuffer.wrap(new byte[] {(byte) 0xff, 0x38})); // -2.00
    datum.put("decF", decimalFixed(schema.getField("decF").schema(), n));
    datum.put("bigDec", ByteBuffer.wrap(new byte[] {0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    datum.put("date", n == 1 ? 19_000 : -400);
    datum.put("tms", 86_399_999);
    datum.put("tus", 12_345_678L);
    datum.put("tsms", 1_700_000_000_123L * n);
    datum.put("tsus", 1_700_000_000_123_456L * n);
    datum.put("tsns", 1_700_000_000_123_456_000L * Integer.signum(n) + ns * 1000);
    datum.put("ltsms", -1L);
    datum.put("ltsus", 0L);
    datum.put("ltsns", 999_999_000L);
    datum.put("id", "3f0b8f7c-6c53-4c1a-9a3e-0a1b2c3d4e5f");
    GenericData.Record inner = new GenericData.Record(schema.getField("nested").schema());
    inner.put("tags", n == 1 ? List.of("a") : List.of("b", "", "c"));
    inner.put("p", n == 1 ? pointDatum(point, 1, 2) : null);
    datum.put("nested", inner);
    Map<String, Object> pointsByName = new LinkedHashMap<>();
    pointsByName.put("q", pointDatum(point, n, n));
    pointsByName.put("nil", null);
    datum.put("listOfMaps", List.of(pointsByName, Map.of()));
    return datum;
  }

  static GenericData.Record pointDatum(Schema point, int x, int y) {
    GenericData.Record datum = new GenericData.Record(point);
    datum.put("x", x);
    datum.put("y", y);
    return datum;
  }

  private static GenericData.Fixed decimalFixed(Schema fixed, int n) {
    byte[] bytes = new byte[8];
    if (n < 0) {
      Arrays.fill(bytes, (byte) 0xff);
      bytes[7] = (byte) 0x85; // -123
    } else {
      bytes[7] = 123;
    }
    return new GenericData.Fixed(fixed, bytes);
  }

  /** Hand-made Avro bytes, for encodings Avro's own writer does not produce. */
  static final class Bytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Bytes varint(long value) {
      long n = (value << 1) ^ (value >> 63);
      while ((n & ~0x7fL) != 0) {
        out.write((int) ((n & 0x7f) | 0x80));
        n >>>= 7;
      }
      out.write((int) n);
      return this;
    }

    Bytes raw(int... bytes) {
      for (int b : bytes) {
        out.write(b);
      }
      return this;
    }

    Bytes string(String value) {
      byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
      varint(utf8.length);
      out.write(utf8, 0, utf8.length);
      return this;
    }

    byte[] toByteArray() {
      return out.toByteArray();
    }
  }
}
