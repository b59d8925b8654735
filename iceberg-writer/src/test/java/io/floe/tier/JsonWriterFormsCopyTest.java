package io.floe.tier;

import static io.floe.tier.TypedCopies.assertServedExactly;
import static io.floe.tier.TypedCopies.column;
import static io.floe.tier.TypedCopies.nulls;
import static io.floe.tier.TypedCopies.registry;
import static io.floe.tier.TypedCopies.segments;
import static io.floe.tier.TypedCopies.typedValues;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.layout.TypedColumns;
import io.floe.rows.PayloadCounts;
import io.floe.rows.TableCodecs;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs;
import io.floe.typed.ColumnFormat;
import io.floe.typed.SchemaText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JSON values written with Java's numbers ({@code 12.0}, {@code 1.0E7}, as Jackson and so
 * Confluent's Java serializer write them) are typed with no bytes kept: the row records the writer
 * form and fetch re-encodes in it. Tables made before the form column keep such records' bytes.
 */
class JsonWriterFormsCopyTest {
  private static final String TOPIC = "orders.forms";
  private static final String TOPIC_ID = "f0rm5T0p1c1dAAAAAAAAAA";
  private static final int SCHEMA_ID = 41;
  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
          + "\"price\":{\"type\":\"number\"}}}";
  private static final List<String> PAYLOADS =
      List.of(
          "{\"id\":1,\"price\":12}",
          "{\"id\":2,\"price\":12.0}",
          "{\"id\":3,\"price\":1.0E7}",
          "{\"id\":4,\"price\":-0.0}",
          "{\"id\":5,\"price\":12.5}",
          "{\"id\":6, \"price\": 12.0}",
          "{\"id\":7,\"price\":1e+21}",
          "{\"id\":8,\"price\":1.0E21}");

  @TempDir Path dir;

  @Test
  void javasNumbersAreTypedWithTheirFormAndFetchedExactly() throws Exception {
    Path log = segment();
    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("json-schema"));
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "forms");
      assertThat(copy(tables, key, log)).isEqualTo(new PayloadCounts(7, 1, 0));

      List<Record> rows = TableFixture.rows(tables.find(TOPIC, TOPIC_ID));
      assertThat(column(rows, TypedColumns.status("value")))
          .containsExactly("ok", "ok", "ok", "ok", "ok", "inexact", "ok", "ok");
      assertThat(column(rows, TypedColumns.form("value")))
          .containsExactly(null, 1, 1, 1, null, null, null, 1);
      assertThat(column(rows, TypedColumns.raw("value")))
          .containsExactly(
              null, null, null, null, null, ByteBuffer.wrap(wire(PAYLOADS.get(5))), null, null);
      assertThat(((Record) rows.get(3).getField("value")).getField("price")).isEqualTo(-0.0);

      assertServedExactly(tables, key, log);
    }
  }

  @Test
  void aTableWithoutTheFormColumnKeepsTheBytesOfJavasNumbers() throws Exception {
    Path log = segment();
    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      TopicTables tables = new TopicTables(catalog, typedValues("json-schema"));
      Table table = tables.forCopy(TOPIC, TOPIC_ID);
      table.updateSchema().deleteColumn(TypedColumns.form("value")).commit();
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "forms-legacy");
      assertThat(copy(tables, key, log)).isEqualTo(new PayloadCounts(3, 5, 0));

      List<Record> rows = TableFixture.rows(tables.find(TOPIC, TOPIC_ID));
      assertThat(column(rows, TypedColumns.status("value")))
          .containsExactly("ok", "inexact", "inexact", "inexact", "ok", "inexact", "ok", "inexact");
      assertServedExactly(tables, key, log);
    }
  }

  private Path segment() throws Exception {
    List<byte[]> values = new ArrayList<>();
    PAYLOADS.forEach(p -> values.add(wire(p)));
    return SegmentGenerator.seeded(12)
        .keyValueBatch(Compression.NONE, nulls(values.size()), values)
        .writeTo(dir.resolve("0.log"));
  }

  private static PayloadCounts copy(TopicTables tables, SegmentKey key, Path log) throws Exception {
    return segments(
            tables,
            new TableCodecs(
                registry(
                    Map.of(
                        SCHEMA_ID,
                        new SchemaText(
                            SCHEMA_ID, ColumnFormat.Format.JSON_SCHEMA, SCHEMA, Map.of())),
                    new AtomicInteger())))
        .copy(key, SegmentFiles.of(log, 0))
        .payloads();
  }

  private static byte[] wire(String json) {
    return TypedCopies.wire(SCHEMA_ID, json.getBytes(StandardCharsets.UTF_8));
  }
}
