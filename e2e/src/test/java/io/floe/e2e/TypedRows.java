package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.e2e.TypedFormatsTest.Sent;
import io.floe.e2e.TypedPayloads.Pair;
import io.floe.e2e.TypedPayloads.Payload;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.TypedColumns;
import io.floe.testing.SparkSqlRunner;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;

/**
 * The typed columns of a pair's table as Iceberg's generic reader and Spark SQL read them, each row
 * reduced to what {@link Payload} expects (typed fields without nulls, so older rows that read null
 * in newer columns compare equal), and compared with what was produced.
 */
final class TypedRows {
  /** One column (key or value) of a row. */
  record Column(String status, String reason, Map<String, Object> fields, ByteBuffer raw) {}

  record Row(Column key, Column value) {}

  private final FloeCluster cluster;
  private final Admin admin;
  private final Path dir;

  TypedRows(FloeCluster cluster, Admin admin, Path dir) {
    this.cluster = cluster;
    this.admin = admin;
    this.dir = dir;
  }

  private Table table(JdbcCatalog catalog, Pair pair) throws Exception {
    String topicId =
        admin
            .describeTopics(List.of(pair.typed))
            .allTopicNames()
            .get()
            .get(pair.typed)
            .topicId()
            .toString();
    Table table =
        new TopicTables(catalog, TopicTableOptions.builder().build()).find(pair.typed, topicId);
    assertThat(table).as("table of %s", pair.typed).isNotNull();
    return table;
  }

  boolean hasColumn(Pair pair, String column) throws Exception {
    try (JdbcCatalog catalog = cluster.catalog()) {
      return table(catalog, pair).schema().findField(column) != null;
    }
  }

  /** The rows below {@code end}, by offset, read with Iceberg's generic reader. */
  NavigableMap<Long, Row> read(Pair pair, long end) throws Exception {
    NavigableMap<Long, Row> out = new TreeMap<>();
    try (JdbcCatalog catalog = cluster.catalog();
        CloseableIterable<Record> records = IcebergGenerics.read(table(catalog, pair)).build()) {
      for (Record row : records) {
        long offset = (Long) ((Record) row.getField("kafka")).getField("offset");
        if (offset < end) {
          out.put(offset, new Row(column(row, "key"), column(row, "value")));
        }
      }
    }
    return out;
  }

  private static Column column(Record row, String name) {
    Record typed = (Record) row.getField(name);
    Map<String, Object> fields = null;
    if (typed != null) {
      fields = new LinkedHashMap<>();
      for (Types.NestedField f : typed.struct().fields()) {
        Object v = typed.getField(f.name());
        if (v != null) {
          fields.put(f.name(), v instanceof CharSequence s ? s.toString() : v);
        }
      }
    }
    return new Column(
        (String) row.getField(TypedColumns.status(name)),
        (String) row.getField(TypedColumns.reason(name)),
        fields,
        (ByteBuffer) row.getField(TypedColumns.raw(name)));
  }

  /** {@code actual} holds a row for each record of {@code expected} and no other, as produced. */
  static void assertRows(String what, Map<Long, Row> actual, NavigableMap<Long, Sent> expected) {
    assertThat(actual.keySet()).as("%s: offsets of the rows", what).isEqualTo(expected.keySet());
    expected.forEach(
        (offset, sent) -> {
          Row row = actual.get(offset);
          assertColumn(what + " key at " + offset, row.key(), sent.key());
          assertColumn(what + " value at " + offset, row.value(), sent.value());
        });
  }

  private static void assertColumn(String what, Column actual, Payload expected) {
    assertThat(actual.status())
        .as("%s: status (%s)", what, actual.reason())
        .isEqualTo(expected.status());
    assertThat(actual.fields()).as("%s: typed fields", what).isEqualTo(expected.fields());
    if (expected.reason() != null) {
      assertThat(actual.reason()).as("%s: reason", what).contains(expected.reason());
    } else if ("undecodable".equals(expected.status())) {
      assertThat(actual.reason()).as("%s: reason", what).isNotBlank();
    } else if ("ok".equals(expected.status()) || expected.status() == null) {
      assertThat(actual.reason()).as("%s: reason", what).isNull();
    }
    boolean keepsBytes = expected.status() != null && !"ok".equals(expected.status());
    assertThat(actual.raw())
        .as("%s: original bytes", what)
        .isEqualTo(keepsBytes ? ByteBuffer.wrap(expected.bytes()) : null);
  }

  /**
   * Spark SQL over the same catalog reads each pair's typed columns (statuses, reasons, original
   * bytes and the typed fields) as the records were produced, below the pair's end offset.
   */
  void assertSparkReadsTypedColumns(Map<Pair, NavigableMap<Long, Sent>> expected) throws Exception {
    List<Pair> pairs = new ArrayList<>(expected.keySet());
    List<String> statements = new ArrayList<>();
    try (JdbcCatalog catalog = cluster.catalog()) {
      for (Pair pair : pairs) {
        String name = table(catalog, pair).name();
        String from = TestCatalogs.CATALOG_NAME + "." + name.replaceFirst("^[^.]+\\.", "");
        statements.add(
            "SELECT kafka.offset AS offset, key_status, key_reason, key, key_raw,"
                + " value_status, value_reason, value, value_raw FROM "
                + from
                + " WHERE kafka.offset <= "
                + expected.get(pair).lastKey());
      }
    }
    long started = System.nanoTime();
    List<SparkSqlRunner.Result> results =
        SparkSqlRunner.run(
            dir.resolve("spark-typed"),
            SparkSqlRunner.icebergCatalog(TestCatalogs.CATALOG_NAME, cluster.catalogProperties),
            statements,
            Duration.ofMinutes(5));
    System.out.printf(
        "Spark read the typed tables in %d ms%n", (System.nanoTime() - started) / 1_000_000);
    Iterator<SparkSqlRunner.Result> result = results.iterator();
    for (Pair pair : pairs) {
      NavigableMap<Long, Row> rows = new TreeMap<>();
      for (JsonNode row : result.next().requireOk().rows()) {
        rows.put(row.get("offset").asLong(), new Row(column(row, "key"), column(row, "value")));
      }
      assertRows(pair.typed + " in Spark", rows, expected.get(pair));
    }
  }

  /** A column of Spark's JSON row (binary in base64). */
  private static Column column(JsonNode row, String name) {
    Map<String, Object> fields = null;
    JsonNode typed = row.get(name);
    if (typed != null && !typed.isNull()) {
      fields = new LinkedHashMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = typed.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        if (!f.getValue().isNull()) {
          fields.put(f.getKey(), value(f.getKey(), f.getValue()));
        }
      }
    }
    JsonNode raw = row.get(TypedColumns.raw(name));
    return new Column(
        text(row.get(TypedColumns.status(name))),
        text(row.get(TypedColumns.reason(name))),
        fields,
        raw == null || raw.isNull()
            ? null
            : ByteBuffer.wrap(Base64.getDecoder().decode(raw.asText())));
  }

  private static Object value(String field, JsonNode v) {
    if (v.isArray()) {
      List<String> list = new ArrayList<>();
      v.forEach(e -> list.add(e.asText()));
      return list;
    }
    if (v.isNumber()) {
      return field.equals("amount") ? (Object) v.asDouble() : (Object) v.asLong();
    }
    return v.asText();
  }

  private static String text(JsonNode v) {
    return v == null || v.isNull() ? null : v.asText();
  }
}
