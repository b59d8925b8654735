package io.floe.tier;

import static io.floe.tier.TypedCopies.assertServedExactly;
import static io.floe.tier.TypedCopies.nulls;
import static io.floe.tier.TypedCopies.registry;
import static io.floe.tier.TypedCopies.segments;
import static io.floe.tier.TypedCopies.statuses;
import static io.floe.tier.TypedCopies.typedValues;
import static io.floe.tier.TypedCopies.wire;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.layout.TypedColumns;
import io.floe.rows.ConsumedRecord;
import io.floe.rows.PayloadCounts;
import io.floe.rows.TableCodecs;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs;
import io.floe.typed.ColumnFormat;
import io.floe.typed.SchemaText;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies of segments whose writer schemas change a field's type in a way Iceberg cannot promote:
 * the field of the newer schema gets a column of its own ({@code <field>__<kind>}), every record is
 * typed, and fetch gives back every batch exactly from the table, with no registry, also after the
 * table evolved again for a later schema.
 */
class TypedConflictCopyTest {
  private static final String TOPIC = "orders.conflict";
  private static final String TOPIC_ID = "c0nf1ctT0p1c1dAAAAAAAA";
  private static final Schema V1 = order("double");
  private static final Schema V3 = order("string");
  private static final Schema V4 = order("long");
  private static final String JSON_V1 = jsonSchema("integer");
  private static final String JSON_V2 = jsonSchema("string");

  @TempDir Path dir;

  private final Map<Integer, SchemaText> registry = new HashMap<>();

  @Test
  void anAvroFieldIcebergCannotChangeGetsAColumnOfItsOwnAndFetchIsExact() throws Exception {
    registry.put(11, new SchemaText(11, ColumnFormat.Format.AVRO, V1.toString(), Map.of()));
    registry.put(13, new SchemaText(13, ColumnFormat.Format.AVRO, V3.toString(), Map.of()));
    registry.put(14, new SchemaText(14, ColumnFormat.Format.AVRO, V4.toString(), Map.of()));
    List<byte[]> first =
        List.of(
            wire(11, avro(V1, 1, "ada", 10.5)),
            wire(13, avro(V3, 2, "bob", "ten")),
            wire(11, avro(V1, 3, "cy", 3.25)));
    List<byte[]> second = List.of(wire(13, avro(V3, 4, "dee", "four")));
    SegmentGenerator gen =
        SegmentGenerator.seeded(7)
            .keyValueBatch(Compression.NONE, nulls(first.size()), first)
            .keyValueBatch(Compression.ZSTD, nulls(second.size()), second);
    Path log1 = gen.writeTo(dir.resolve("0.log"));
    long next = gen.nextOffset();
    List<byte[]> later =
        List.of(
            wire(14, avro(V4, 5, "eve", 5L)),
            wire(11, avro(V1, 6, "fay", 6.5)),
            wire(13, avro(V3, 7, "gus", "seven")));
    Path log2 =
        SegmentGenerator.seeded(8)
            .startOffset(next)
            .keyValueBatch(Compression.NONE, nulls(later.size()), later)
            .writeTo(dir.resolve(next + ".log"));

    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("avro"));
      SegmentKey key1 = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "conflict-1");
      assertThat(copy(tables, key1, log1, 0)).isEqualTo(new PayloadCounts(4, 0, 0));

      Table table = tables.find(TOPIC, TOPIC_ID);
      assertThat(table.schema().findType("value.amount")).isEqualTo(Types.DoubleType.get());
      assertThat(table.schema().findType("value.amount__string")).isEqualTo(Types.StringType.get());
      List<Record> rows = TableFixture.rows(table);
      assertThat(statuses(rows)).containsExactly("ok", "ok", "ok", "ok");
      assertThat(fields(rows, "amount")).containsExactly(10.5, null, 3.25, null);
      assertThat(fields(rows, "amount__string")).containsExactly(null, "ten", null, "four");
      assertThat(fields(rows, "customer")).containsExactly("ada", "bob", "cy", "dee");
      assertThat(rows)
          .extracting(r -> r.getField(TypedColumns.schemaId("value")))
          .containsExactly(11, 13, 11, 13);

      Record head =
          new TableCodecs(registry(registry, new AtomicInteger()))
              .forHead(table)
              .newRow(consumed(next, wire(13, avro(V3, 9, "hal", "nine"))));
      assertThat(head.getField(TypedColumns.status("value")))
          .as("head rows use the same placement")
          .isEqualTo("ok");
      // The row's struct has the writer's view of the column; Iceberg's writers read it by position
      Types.StructType columnType = table.schema().findType("value").asStructType();
      StructLike headValue = (StructLike) head.getField("value");
      assertThat(headValue.get(position(columnType, "amount__string"), Object.class))
          .hasToString("nine");
      assertThat(headValue.get(position(columnType, "amount"), Object.class)).isNull();

      SegmentKey key2 = new SegmentKey(TOPIC, TOPIC_ID, 0, next, "conflict-2");
      assertThat(copy(tables, key2, log2, next)).isEqualTo(new PayloadCounts(3, 0, 0));
      table.refresh();
      assertThat(table.schema().findType("value.amount__long")).isEqualTo(Types.LongType.get());
      rows = TableFixture.rows(table);
      assertThat(statuses(rows)).containsOnly("ok").hasSize(7);
      assertThat(fields(rows, "amount")).containsExactly(10.5, null, 3.25, null, null, 6.5, null);
      assertThat(fields(rows, "amount__string"))
          .containsExactly(null, "ten", null, "four", null, null, "seven");
      assertThat(fields(rows, "amount__long"))
          .containsExactly(null, null, null, null, 5L, null, null);

      assertServedExactly(tables, key1, log1);
      assertServedExactly(tables, key2, log2);
    }
  }

  @Test
  void aJsonSchemaNestedFieldIcebergCannotChangeGetsAFieldOfItsOwnInItsStruct() throws Exception {
    registry.put(21, new SchemaText(21, ColumnFormat.Format.JSON_SCHEMA, JSON_V1, Map.of()));
    registry.put(22, new SchemaText(22, ColumnFormat.Format.JSON_SCHEMA, JSON_V2, Map.of()));
    List<byte[]> values =
        List.of(
            wire(21, json("{\"id\":1,\"address\":{\"zip\":12345,\"city\":\"Oslo\"}}")),
            wire(22, json("{\"id\":2,\"address\":{\"zip\":\"SW1A 1AA\",\"city\":\"London\"}}")),
            wire(21, json("{\"id\":3,\"address\":{\"city\":\"Bergen\"}}")));
    Path log =
        SegmentGenerator.seeded(9)
            .keyValueBatch(Compression.NONE, nulls(values.size()), values)
            .writeTo(dir.resolve("0.log"));

    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("json-schema"));
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "conflict-json");
      assertThat(copy(tables, key, log, 0)).isEqualTo(new PayloadCounts(3, 0, 0));

      Table table = tables.find(TOPIC, TOPIC_ID);
      assertThat(table.schema().findType("value.address.zip")).isEqualTo(Types.LongType.get());
      assertThat(table.schema().findType("value.address.zip__string"))
          .isEqualTo(Types.StringType.get());
      assertThat(table.schema().findField("value.address__struct")).isNull();
      List<Record> rows = TableFixture.rows(table);
      assertThat(statuses(rows)).containsExactly("ok", "ok", "ok");
      List<Record> addresses = new ArrayList<>();
      rows.forEach(r -> addresses.add((Record) ((Record) r.getField("value")).getField("address")));
      assertThat(addresses)
          .extracting(a -> a.getField("zip"), a -> a.getField("zip__string"))
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(12345L, null),
              org.assertj.core.groups.Tuple.tuple(null, "SW1A 1AA"),
              org.assertj.core.groups.Tuple.tuple(null, null));
      assertThat(addresses).extracting(a -> a.getField("city")).contains("London");

      assertServedExactly(tables, key, log);
    }
  }

  @Test
  void aTopLevelTypeIcebergCannotChangeLeavesThatSchemasRecordsTheirBytes() throws Exception {
    registry.put(
        31, new SchemaText(31, ColumnFormat.Format.JSON_SCHEMA, "{\"type\":\"string\"}", Map.of()));
    registry.put(
        32,
        new SchemaText(32, ColumnFormat.Format.JSON_SCHEMA, "{\"type\":\"integer\"}", Map.of()));
    List<byte[]> values =
        List.of(wire(31, json("\"abc\"")), wire(32, json("5")), wire(31, json("\"def\"")));
    Path log =
        SegmentGenerator.seeded(10)
            .keyValueBatch(Compression.NONE, nulls(values.size()), values)
            .writeTo(dir.resolve("0.log"));

    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("json-schema"));
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "conflict-top");
      assertThat(copy(tables, key, log, 0)).isEqualTo(new PayloadCounts(2, 0, 1));

      Table table = tables.find(TOPIC, TOPIC_ID);
      assertThat(table.schema().findType("value")).isEqualTo(Types.StringType.get());
      List<Record> rows = TableFixture.rows(table);
      assertThat(statuses(rows)).containsExactly("ok", "undecodable", "ok");
      assertThat((String) rows.get(1).getField(TypedColumns.reason("value")))
          .contains("writer schema 32 cannot evolve column value");
      assertThat(rows.get(1).getField(TypedColumns.raw("value")))
          .isEqualTo(ByteBuffer.wrap(values.get(1)));
      assertThat(rows.get(2).getField("value")).isEqualTo("def");

      assertServedExactly(tables, key, log);
    }
  }

  private PayloadCounts copy(TopicTables tables, SegmentKey key, Path log, long base)
      throws Exception {
    return segments(tables, new TableCodecs(registry(registry, new AtomicInteger())))
        .copy(key, SegmentFiles.of(log, base))
        .payloads();
  }

  private static int position(Types.StructType struct, String name) {
    return struct.fields().indexOf(struct.field(name));
  }

  private static ConsumedRecord consumed(long offset, byte[] value) {
    return ConsumedRecord.of(
        0, offset, 1_700_000_000_000L, TimestampType.CREATE_TIME, 0, null, value, List.of());
  }

  private static List<Object> fields(List<Record> rows, String field) {
    List<Object> out = new ArrayList<>();
    rows.forEach(r -> out.add(((Record) r.getField("value")).getField(field)));
    return out;
  }

  private static Schema order(String amountType) {
    return new Schema.Parser()
        .parse(
            "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\"},"
                + "{\"name\":\"customer\",\"type\":\"string\"},"
                + "{\"name\":\"amount\",\"type\":\""
                + amountType
                + "\"}]}");
  }

  private static String jsonSchema(String zipType) {
    return "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
        + "\"address\":{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\""
        + zipType
        + "\"},\"city\":{\"type\":\"string\"}}}}}";
  }

  private static byte[] avro(Schema schema, long id, String customer, Object amount)
      throws Exception {
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", id);
    r.put("customer", customer);
    r.put("amount", amount);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(r, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static byte[] json(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
