package io.floe.tier;

import static io.floe.tier.TypedCopies.avro;
import static io.floe.tier.TypedCopies.nulls;
import static io.floe.tier.TypedCopies.registry;
import static io.floe.tier.TypedCopies.segments;
import static io.floe.tier.TypedCopies.statuses;
import static io.floe.tier.TypedCopies.typedValues;
import static io.floe.tier.TypedCopies.wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.fetch.StoredSegment;
import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.format.TimestampType;
import io.floe.layout.TypedColumns;
import io.floe.manifest.CorruptSidecarException;
import io.floe.manifest.SegmentManifest;
import io.floe.manifest.SidecarObjects;
import io.floe.rows.ConsumedRecord;
import io.floe.rows.PayloadCounts;
import io.floe.rows.RowCodec;
import io.floe.rows.TableCodecs;
import io.floe.rows.TypedValueCodec;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs;
import io.floe.typed.ColumnFormat;
import io.floe.typed.SchemaEvolutionRequired;
import io.floe.typed.SchemaText;
import io.floe.typed.StoredSchemas;
import java.io.InputStream;
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
import org.apache.avro.generic.GenericRecord;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies of segments of a topic whose values are Avro in the schema registry's wire format: typed
 * columns for records that re-encode exactly, typed columns plus bytes for those that do not, bytes
 * and a reason for those that cannot be decoded; a new writer schema evolves the table; fetch gives
 * back every batch exactly from the schemas stored with the table, with no registry at all.
 */
class TypedCopyTest {
  private static final String TOPIC = "orders.typed";
  private static final String TOPIC_ID = "tYp3dT0p1c1dAAAAAAAAAA";
  private static final Schema V1 =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                  + "{\"name\":\"id\",\"type\":\"long\"},"
                  + "{\"name\":\"customer\",\"type\":\"string\"},"
                  + "{\"name\":\"amount\",\"type\":\"double\"}]}");
  private static final Schema V2 =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                  + "{\"name\":\"id\",\"type\":\"long\"},"
                  + "{\"name\":\"customer\",\"type\":\"string\"},"
                  + "{\"name\":\"amount\",\"type\":\"double\"},"
                  + "{\"name\":\"coupon\",\"type\":[\"null\",\"string\"],\"default\":null}]}");

  @TempDir Path dir;

  private final Map<Integer, SchemaText> registry = new HashMap<>();
  private final AtomicInteger registryCalls = new AtomicInteger();

  @Test
  void typedRowsStatusesEvolutionAndExactFetchWithoutTheRegistry() throws Exception {
    registry.put(11, new SchemaText(11, ColumnFormat.Format.AVRO, V1.toString(), Map.of()));
    registry.put(12, new SchemaText(12, ColumnFormat.Format.AVRO, V2.toString(), Map.of()));
    List<byte[]> values = new ArrayList<>();
    values.add(wire(11, avro(V1, order(V1, 1, "ada", 10.5))));
    values.add(wire(11, avro(V1, order(V1, 2, "bob", 20.0))));
    values.add(null);
    values.add("{\"id\":3}".getBytes(StandardCharsets.UTF_8));
    values.add(wire(99, avro(V1, order(V1, 4, "cy", 1))));
    values.add(nonMinimalId(wire(11, avro(V1, order(V1, 5, "dee", 5)))));
    values.add(new byte[0]);
    List<byte[]> later = new ArrayList<>();
    GenericRecord withCoupon = order(V2, 6, "eve", 6);
    withCoupon.put("coupon", "SAVE10");
    later.add(wire(12, avro(V2, withCoupon)));
    later.add(wire(11, avro(V1, order(V1, 7, "fay", 7))));
    SegmentGenerator gen =
        SegmentGenerator.seeded(3)
            .keyValueBatch(Compression.NONE, nulls(values.size()), values)
            .keyValueBatch(Compression.ZSTD, nulls(later.size()), later);
    Path log = gen.writeTo(dir.resolve("0.log"));

    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("avro"));
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "typed-1");
      TieredSegments.CopyResult copied =
          segments(tables, new TableCodecs(registry(registry, registryCalls)))
              .copy(key, SegmentFiles.of(log, 0));
      assertThat(copied.payloads()).isEqualTo(new PayloadCounts(4, 1, 3));

      Table table = tables.find(TOPIC, TOPIC_ID);
      assertThat(table.properties())
          .containsEntry("floe.value.format", "avro")
          .containsEntry("floe.layout-version", "2");
      assertThat(table.schema().findField("value.coupon")).as("evolved by schema 12").isNotNull();

      List<Record> rows = TableFixture.rows(table);
      assertThat(rows).hasSize(9);
      assertThat(statuses(rows))
          .containsExactly(
              "ok", "ok", null, "undecodable", "undecodable", "inexact", "undecodable", "ok", "ok");
      Record first = (Record) rows.get(0).getField("value");
      assertThat(first.getField("customer")).isEqualTo("ada");
      assertThat(first.getField("amount")).isEqualTo(10.5);
      assertThat(rows.get(0).getField(TypedColumns.raw("value"))).isNull();
      assertThat(rows.get(0).getField(TypedColumns.schemaId("value"))).isEqualTo(11);
      assertThat((String) rows.get(3).getField(TypedColumns.reason("value")))
          .contains("not the schema registry wire format");
      assertThat((String) rows.get(4).getField(TypedColumns.reason("value"))).contains("99");
      assertThat(rows.get(4).getField(TypedColumns.raw("value")))
          .isEqualTo(ByteBuffer.wrap(values.get(4)));
      Record inexact = (Record) rows.get(5).getField("value");
      assertThat(inexact.getField("id")).isEqualTo(5L);
      assertThat(rows.get(5).getField(TypedColumns.raw("value")))
          .isEqualTo(ByteBuffer.wrap(values.get(5)));
      assertThat(((Record) rows.get(7).getField("value")).getField("coupon")).isEqualTo("SAVE10");
      assertThat(((Record) rows.get(8).getField("value")).getField("coupon")).isNull();

      StoredSchemas stored = new StoredSchemas(table.io(), table.location(), "value");
      assertThat(stored.load(11)).isEqualTo(registry.get(11));
      assertThat(stored.load(12)).isEqualTo(registry.get(12));

      assertThat(segments(tables, TableCodecs.withoutRegistry()).open(key).manifest())
          .extracting(SegmentManifest::typedCodecVersion)
          .as("an Avro table's segments keep the version the previous Floe serves")
          .isEqualTo(2);
      assertThat(
              TypedValueCodec.versionFor(
                  new ColumnFormat(
                      ColumnFormat.Format.PROTOBUF, ColumnFormat.SchemaSource.WIRE, null)))
          .as("Protobuf's counted first-message index needs this version")
          .isEqualTo(TypedValueCodec.VERSION)
          .isEqualTo(3);
      assertThat(TypedValueCodec.versionFor(ColumnFormat.BINARY)).isZero();
      SegmentManifest newer =
          SegmentManifest.parse(
              SidecarObjects.read(table.io(), key.sidecarLocation(table.location())));
      byte[] fromTheFuture =
          SegmentManifest.builder()
              .topic(TOPIC)
              .topicId(TOPIC_ID)
              .partition(0)
              .offsets(newer.offsets())
              .segmentId("typed-future")
              .reencoding(Reencoding.CURRENT)
              .typedCodecVersion(TypedValueCodec.VERSION + 1)
              .dataFiles(newer.dataFiles())
              .directory(newer.directory())
              .offsetIndex(newer.offsetIndex())
              .timeIndex(newer.timeIndex())
              .build()
              .toBytes();
      assertThatThrownBy(
              () ->
                  new StoredSegment(
                      table, SegmentManifest.parse(fromTheFuture), TableCodecs.withoutRegistry()))
          .isInstanceOf(CorruptSidecarException.class)
          .hasMessageContaining("typed codec version " + (TypedValueCodec.VERSION + 1));

      int callsBeforeFetch = registryCalls.get();
      List<RecordBatch> served;
      try (InputStream in = segments(tables, TableCodecs.withoutRegistry()).open(key).fetch(0)) {
        served = Batches.read(in);
      }
      Batches.assertSameBatches(Batches.read(log), served);
      assertThat(registryCalls.get())
          .as("fetch never calls the registry")
          .isEqualTo(callsBeforeFetch);
    }
  }

  @Test
  void headRowsAreTypedAndANewerSchemaEvolvesOnlyTheHeadsView() throws Exception {
    registry.put(11, new SchemaText(11, ColumnFormat.Format.AVRO, V1.toString(), Map.of()));
    registry.put(12, new SchemaText(12, ColumnFormat.Format.AVRO, V2.toString(), Map.of()));
    List<byte[]> values = List.of(wire(11, avro(V1, order(V1, 1, "ada", 1))));
    Path log =
        SegmentGenerator.seeded(5)
            .keyValueBatch(Compression.NONE, nulls(1), values)
            .writeTo(dir.resolve("0.log"));
    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("avro"));
      TableCodecs codecs = new TableCodecs(registry(registry, registryCalls));
      segments(tables, codecs)
          .copy(new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "typed-1"), SegmentFiles.of(log, 0));
      Table table = tables.find(TOPIC, TOPIC_ID);
      long schemaId = table.schema().schemaId();

      RowCodec head = codecs.forHead(table);
      GenericRecord withCoupon = order(V2, 2, "bob", 2);
      withCoupon.put("coupon", "C");
      byte[] known = wire(11, avro(V1, order(V1, 3, "cy", 3)));
      byte[] newer = wire(12, avro(V2, withCoupon));
      Record typed = head.newRow(consumed(0, 1, known));

      assertThat(typed.getField(TypedColumns.status("value"))).isEqualTo("ok");
      assertThat(((Record) typed.getField("value")).getField("customer")).hasToString("cy");
      assertThatThrownBy(() -> head.newRow(consumed(0, 2, newer)))
          .as("the head view evolves its own view of the table for a newer schema")
          .isInstanceOf(SchemaEvolutionRequired.class);
      table.refresh();
      assertThat(table.schema().schemaId())
          .as("the head never evolves the table")
          .isEqualTo(schemaId);
      assertThat(new StoredSchemas(table.io(), table.location(), "value").load(12))
          .as("nor stores schemas with it")
          .isNull();
    }
  }

  private static ConsumedRecord consumed(int partition, long offset, byte[] value) {
    return ConsumedRecord.of(
        partition,
        offset,
        1_700_000_000_000L,
        TimestampType.CREATE_TIME,
        0,
        null,
        value,
        List.of());
  }

  private static GenericRecord order(Schema schema, long id, String customer, double amount) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", id);
    r.put("customer", customer);
    r.put("amount", amount);
    return r;
  }

  /** The record with its first field (a small long, one varint byte) written as two bytes. */
  private static byte[] nonMinimalId(byte[] wire) {
    byte[] out = new byte[wire.length + 1];
    System.arraycopy(wire, 0, out, 0, 5);
    out[5] = (byte) (wire[5] | 0x80);
    out[6] = 0;
    System.arraycopy(wire, 6, out, 7, wire.length - 6);
    return out;
  }
}
