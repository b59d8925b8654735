package io.floe.typed.avro;

import static io.floe.typed.avro.AvroFixtures.avroBytes;
import static io.floe.typed.avro.AvroFixtures.buffer;
import static io.floe.typed.avro.AvroFixtures.codec;
import static io.floe.typed.avro.AvroFixtures.writerSchema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.avro.AvroFixtures.Bytes;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class AvroCodecTest {

  @Test
  void payloadsOfAvrosOwnWriterRoundTripByteExact() throws Exception {
    AvroWriterSchema schema = AvroFixtures.everything();
    PayloadCodec codec = codec(schema);
    for (GenericData.Record datum : AvroFixtures.everythingData(schema.avroSchema())) {
      byte[] payload = avroBytes(schema.avroSchema(), datum);
      assertThat(codec.encode(codec.decode(buffer(payload)))).isEqualTo(payload);
    }
  }

  @Test
  void decodesEveryTypeToIcebergsGenericValues() throws Exception {
    AvroWriterSchema schema = AvroFixtures.everything();
    GenericData.Record datum = AvroFixtures.everythingData(schema.avroSchema()).get(1);
    Record value = (Record) codec(schema).decode(buffer(avroBytes(schema.avroSchema(), datum)));

    assertThat(value.getField("b")).isEqualTo(false);
    assertThat(value.getField("i")).isEqualTo(-7);
    assertThat(value.getField("by")).isEqualTo(ByteBuffer.wrap(new byte[] {0, (byte) 255, 3}));
    assertThat(value.getField("fx")).isEqualTo(new byte[] {1, 2, 3, 4});
    assertThat(value.getField("e")).isEqualTo("BLUE");
    assertThat(value.getField("opt")).hasToString("ünïcödé ✓");
    assertThat(value.getField("optLast")).isNull();
    Record choice = (Record) value.getField("choice");
    assertThat(choice.getField("int")).isNull();
    assertThat(((Record) choice.getField("Point")).getField("x")).isEqualTo(-7);
    assertThat(value.getField("m")).isInstanceOf(LinkedHashMap.class);
    assertThat(List.copyOf(((Map<?, ?>) value.getField("m")).keySet()))
        .isEqualTo(List.of("zeta", "alpha", "mid"));
    assertThat(value.getField("decB")).isEqualTo(new BigDecimal("-2.00"));
    assertThat(value.getField("decF")).isEqualTo(new BigDecimal("-0.123"));
    assertThat(value.getField("bigDec")).isInstanceOf(ByteBuffer.class);
    assertThat(value.getField("date")).isEqualTo(LocalDate.ofEpochDay(-400));
    assertThat(value.getField("tms")).isEqualTo(LocalTime.of(23, 59, 59, 999_000_000));
    assertThat(value.getField("tsms"))
        .isEqualTo(Instant.ofEpochMilli(-11_900_000_000_861L).atOffset(ZoneOffset.UTC));
    assertThat(value.getField("ltsms"))
        .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000));
    assertThat(value.getField("id")).hasToString("3f0b8f7c-6c53-4c1a-9a3e-0a1b2c3d4e5f");
    assertThat((List<?>) ((Record) value.getField("nested")).getField("tags"))
        .map(Object::toString)
        .isEqualTo(List.of("b", "", "c"));
  }

  @Test
  void multiBlockArrayWithNegativeCountDecodesButReencodesCanonically() throws Exception {
    PayloadCodec codec = codec(writerSchema("{\"type\":\"array\",\"items\":\"int\"}"));
    // As Go writers do: a block of -2 items of 2 bytes, a block of 1 item, the end
    byte[] payload =
        new Bytes()
            .varint(-2)
            .varint(2)
            .varint(1)
            .varint(2)
            .varint(1)
            .varint(3)
            .varint(0)
            .toByteArray();

    Object value = codec.decode(buffer(payload));

    assertThat(value).isEqualTo(List.of(1, 2, 3));
    assertThat(codec.encode(value))
        .isEqualTo(new Bytes().varint(3).varint(1).varint(2).varint(3).varint(0).toByteArray())
        .isNotEqualTo(payload);
  }

  @Test
  void nonMinimalVarintsDecodeButReencodeMinimal() throws Exception {
    PayloadCodec codec =
        codec(
            writerSchema(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"i\",\"type\":\"int\"},"
                    + "{\"name\":\"l\",\"type\":\"long\"}]}"));
    byte[] payload =
        new Bytes()
            .raw(0x82, 0x80, 0x00)
            .raw(0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00)
            .toByteArray();

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(value.getField("i")).isEqualTo(1);
    assertThat(value.getField("l")).isEqualTo(-1L);
    assertThat(codec.encode(value)).isEqualTo(new byte[] {2, 1});
  }

  @Test
  void duplicateMapKeyKeepsOneEntry() throws Exception {
    PayloadCodec codec = codec(writerSchema("{\"type\":\"map\",\"values\":\"int\"}"));
    byte[] payload =
        new Bytes()
            .varint(3)
            .string("a")
            .varint(1)
            .string("b")
            .varint(2)
            .string("a")
            .varint(3)
            .varint(0)
            .toByteArray();

    Object value = codec.decode(buffer(payload));

    assertThat(value).isEqualTo(Map.of("a", 3, "b", 2));
    assertThat(List.copyOf(((Map<?, ?>) value).keySet())).isEqualTo(List.of("a", "b"));
    assertThat(codec.encode(value)).isNotEqualTo(payload);
  }

  @Test
  void mapWrittenInNonSortedOrderRoundTripsExactly() throws Exception {
    AvroWriterSchema schema = writerSchema("{\"type\":\"map\",\"values\":\"string\"}");
    Map<String, String> map = new LinkedHashMap<>();
    for (String key : List.of("q", "b", "z", "a", "m")) {
      map.put(key, key + key);
    }
    byte[] payload = avroBytes(schema.avroSchema(), map);
    PayloadCodec codec = codec(schema);

    Object value = codec.decode(buffer(payload));

    assertThat(List.copyOf(((Map<?, ?>) value).keySet()))
        .isEqualTo(List.of("q", "b", "z", "a", "m"));
    assertThat(codec.encode(value)).isEqualTo(payload);
  }

  @Test
  void nanWithPayloadBecomesTheCanonicalNan() throws Exception {
    PayloadCodec codec =
        codec(
            writerSchema(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"float\"},"
                    + "{\"name\":\"d\",\"type\":\"double\"}]}"));
    // float 0x7fc00001, double 0x7ff8000000000001, little-endian
    byte[] payload =
        new Bytes().raw(0x01, 0x00, 0xc0, 0x7f).raw(0x01, 0, 0, 0, 0, 0, 0xf8, 0x7f).toByteArray();

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(Float.floatToRawIntBits((Float) value.getField("f"))).isEqualTo(0x7fc00000);
    assertThat(Double.doubleToRawLongBits((Double) value.getField("d")))
        .isEqualTo(0x7ff8000000000000L);
    assertThat(codec.encode(value))
        .isNotEqualTo(payload)
        .isEqualTo(
            new Bytes().raw(0, 0, 0xc0, 0x7f).raw(0, 0, 0, 0, 0, 0, 0xf8, 0x7f).toByteArray());
  }

  @Test
  void wellFormedUtf8StaysAsItsBytesAndTheRestIsDecodedWithReplacementCharacters()
      throws Exception {
    PayloadCodec codec = codec(writerSchema("\"string\""));
    byte[] wellFormed = new Bytes().varint(4).raw('a', 0xc3, 0xa9, 'b').toByteArray();
    assertThat(codec.decode(buffer(wellFormed))).isInstanceOf(Utf8.class).hasToString("aéb");
    // a surrogate (U+D800) and an overlong NUL: UTF-8 as Java's decoder reads it, not as storage
    for (int[] bad : List.of(new int[] {0xed, 0xa0, 0x80}, new int[] {0xc0, 0x80})) {
      byte[] payload = new Bytes().varint(bad.length).raw(bad).toByteArray();
      Object value = codec.decode(buffer(payload));
      assertThat(value).isInstanceOf(String.class);
      assertThat(value.toString()).contains("\uFFFD");
      assertThat(codec.encode(value)).isNotEqualTo(payload);
    }
  }

  @Test
  void invalidUtf8DecodesWithReplacementCharacters() throws Exception {
    PayloadCodec codec = codec(writerSchema("\"string\""));
    byte[] payload = new Bytes().varint(3).raw('a', 0xc3, 0x28).toByteArray();

    Object value = codec.decode(buffer(payload));

    assertThat(value).isEqualTo("a\uFFFD(");
    assertThat(codec.encode(value)).isNotEqualTo(payload);
  }

  @Test
  void timestampNanosNotAWholeMicroKeepsTheMicrosAndReencodesDifferently() throws Exception {
    PayloadCodec codec =
        codec(writerSchema("{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}"));
    byte[] payload = new Bytes().varint(-1_001).toByteArray();

    Object value = codec.decode(buffer(payload));

    assertThat(value)
        .isEqualTo(OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_998_000, ZoneOffset.UTC));
    assertThat(codec.encode(value)).isEqualTo(new Bytes().varint(-2_000).toByteArray());
    byte[] whole = new Bytes().varint(-2_000).toByteArray();
    assertThat(codec.encode(codec.decode(buffer(whole)))).isEqualTo(whole);
  }

  @Test
  void paddedDecimalBytesReencodeMinimal() throws Exception {
    PayloadCodec codec =
        codec(
            writerSchema(
                "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,\"scale\":1}"));
    byte[] payload = new Bytes().varint(3).raw(0, 0, 5).toByteArray();

    Object value = codec.decode(buffer(payload));

    assertThat(value).isEqualTo(new BigDecimal("0.5"));
    assertThat(codec.encode(value)).isEqualTo(new byte[] {2, 5});
  }

  @Test
  void widerColumnDecodesAndReencodesExactly() throws Exception {
    AvroWriterSchema schema =
        writerSchema(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
                + "{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"amount\",\"type\":{\"type\":"
                + "\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,\"scale\":2}}]}");
    Types.StructType column =
        Types.StructType.of(
            Types.NestedField.optional(10, "extra", Types.StringType.get()),
            Types.NestedField.optional(11, "amount", Types.DecimalType.of(12, 2)),
            Types.NestedField.optional(12, "f", Types.DoubleType.get()),
            Types.NestedField.optional(13, "a", Types.LongType.get()));
    GenericData.Record datum = new GenericData.Record(schema.avroSchema());
    datum.put("a", -123456);
    datum.put("f", 0.1f);
    datum.put("amount", ByteBuffer.wrap(new byte[] {0x30, 0x39}));
    byte[] payload = avroBytes(schema.avroSchema(), datum);
    PayloadCodec codec = schema.bind(column);

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(value.getField("extra")).isNull();
    assertThat(value.getField("a")).isEqualTo(-123456L);
    assertThat(value.getField("f")).isEqualTo((double) 0.1f);
    assertThat(value.getField("amount")).isEqualTo(new BigDecimal("123.45"));
    assertThat(codec.encode(value)).isEqualTo(payload);
  }

  @Test
  void columnThatCannotHoldTheSchemaIsRefused() {
    AvroWriterSchema schema =
        writerSchema(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}");

    assertThatThrownBy(
            () ->
                schema.bind(
                    Types.StructType.of(
                        Types.NestedField.optional(1, "a", Types.IntegerType.get()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a");
    assertThatThrownBy(
            () ->
                schema.bind(
                    Types.StructType.of(Types.NestedField.optional(1, "b", Types.LongType.get()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no field");
  }

  @Test
  void unionOfThreeTypesIsAStructOfBranchesAndRoundTrips() throws Exception {
    AvroWriterSchema schema = writerSchema("[\"int\",\"string\"," + AvroFixtures.POINT + "]");
    PayloadCodec codec = codec(schema);
    GenericData.Record point =
        AvroFixtures.pointDatum(schema.avroSchema().getTypes().get(2), 4, -4);
    for (Object datum : List.of(7, "seven", point)) {
      byte[] payload = avroBytes(schema.avroSchema(), datum);
      Record value = (Record) codec.decode(buffer(payload));
      assertThat(codec.encode(value)).isEqualTo(payload);
    }
    Record value = (Record) codec.decode(buffer(avroBytes(schema.avroSchema(), "seven")));
    assertThat(value.getField("string")).hasToString("seven");
    assertThat(value.getField("int")).isNull();
    assertThat(value.getField("Point")).isNull();
  }

  @Test
  void recursiveSchemaRoundTripsWithTheSubtreeAsBytes() throws Exception {
    AvroWriterSchema schema = writerSchema(AvroFixtures.LINKED);
    GenericData.Record tail = new GenericData.Record(schema.avroSchema());
    tail.put("value", 2);
    tail.put("label", "tail");
    GenericData.Record head = new GenericData.Record(schema.avroSchema());
    head.put("value", 1);
    head.put("label", "head");
    head.put("next", tail);
    byte[] payload = avroBytes(schema.avroSchema(), head);
    PayloadCodec codec = codec(schema);

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(value.getField("value")).isEqualTo(1);
    assertThat(value.getField("next"))
        .isEqualTo(ByteBuffer.wrap(avroBytes(schema.avroSchema(), tail)));
    assertThat(codec.encode(value)).isEqualTo(payload);
  }

  @Test
  void recursionThroughAnArrayKeepsEachChildAsBytes() throws Exception {
    AvroWriterSchema schema =
        writerSchema(
            "{\"type\":\"record\",\"name\":\"Tree\",\"fields\":[{\"name\":\"n\",\"type\":"
                + "\"int\"},{\"name\":\"kids\",\"type\":{\"type\":\"array\",\"items\":\"Tree\"}}]}");
    GenericData.Record leaf = new GenericData.Record(schema.avroSchema());
    leaf.put("n", 3);
    leaf.put("kids", List.of());
    GenericData.Record mid = new GenericData.Record(schema.avroSchema());
    mid.put("n", 2);
    mid.put("kids", List.of(leaf, leaf));
    GenericData.Record root = new GenericData.Record(schema.avroSchema());
    root.put("n", 1);
    root.put("kids", List.of(mid, leaf));
    byte[] payload = avroBytes(schema.avroSchema(), root);
    PayloadCodec codec = codec(schema);

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(schema.icebergType().asStructType().field("kids").type().asListType().elementType())
        .isEqualTo(Types.BinaryType.get());
    assertThat(value.getField("kids"))
        .isEqualTo(
            List.of(
                ByteBuffer.wrap(avroBytes(schema.avroSchema(), mid)),
                ByteBuffer.wrap(avroBytes(schema.avroSchema(), leaf))));
    assertThat(codec.encode(value)).isEqualTo(payload);
  }

  @Test
  void undecodablePayloadsSayWhy() {
    PayloadCodec record =
        codec(
            writerSchema(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"u\",\"type\":[\"null\","
                    + "\"string\"]},{\"name\":\"n\",\"type\":\"long\"}]}"));
    assertUndecodable(
        record, new Bytes().varint(0).varint(5).varint(9).toByteArray(), "trailing bytes");
    assertUndecodable(record, new Bytes().varint(2).varint(5).toByteArray(), "union index 2");
    assertUndecodable(record, new Bytes().varint(1).varint(10).raw('a').toByteArray(), "truncated");
    assertUndecodable(record, new Bytes().varint(1).varint(-3).toByteArray(), "negative length");
    assertUndecodable(record, new Bytes().varint(0).raw(0x80).toByteArray(), "truncated");
    assertUndecodable(
        record,
        new Bytes()
            .varint(0)
            .raw(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)
            .toByteArray(),
        "varint longer than 64 bits");
    PayloadCodec array = codec(writerSchema("{\"type\":\"array\",\"items\":\"long\"}"));
    assertUndecodable(
        array, new Bytes().varint(1_000).varint(1).toByteArray(), "longer than the payload");
    assertUndecodable(codec(writerSchema("\"boolean\"")), new byte[] {2}, "neither 0 nor 1");
    assertUndecodable(
        codec(
            writerSchema(
                "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2,\"scale\":0}")),
        new Bytes().varint(2).raw(0x03, 0xe8).toByteArray(),
        "exceeds precision 2");
    assertUndecodable(
        codec(writerSchema("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}")),
        new Bytes().varint(1).toByteArray(),
        "enum index 1");
    assertUndecodable(
        codec(writerSchema(AvroFixtures.LINKED)),
        new Bytes().varint(1).string("a").varint(1).varint(2).string("b").varint(3).toByteArray(),
        "union index 3");
  }

  private static void assertUndecodable(PayloadCodec codec, byte[] payload, String why) {
    assertThatThrownBy(() -> codec.decode(buffer(payload)))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining(why);
  }
}
