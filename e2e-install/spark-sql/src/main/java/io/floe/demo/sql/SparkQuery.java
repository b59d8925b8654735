package io.floe.demo.sql;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.spark.sql.SparkSession;

/**
 * Runs SQL statements in one Spark local session and writes every result as JSON lines, for tests
 * (and scripts) that check what an engine reads from a Floe table.
 *
 * <pre>SparkQuery SPARK_CONF_PROPERTIES STATEMENTS_FILE OUT_JSONL</pre>
 *
 * The properties file holds {@code spark.*} settings (catalogs: {@code
 * spark.sql.catalog.NAME=...SparkCatalog} plus its Iceberg properties). Statements are separated by
 * a line holding only {@code ;}. Every Iceberg catalog gets {@link ScanReports} as its metrics
 * reporter. Output lines, per statement {@code i}: {@code {"statement":i,"row":{...}}} for each
 * result row ({@code Dataset.toJSON}: binary as base64, nulls kept), {@code
 * {"statement":i,"scan":{"table":..,"resultDataFiles":..,"skippedDataFiles":..,...}}} for each
 * Iceberg scan it planned, then {@code {"statement":i,"done":true,"rows":n,"ms":t}} or {@code
 * {"statement":i,"error":"..."}} (a failed statement does not stop the next ones).
 */
public final class SparkQuery {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SparkQuery() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("Usage: SparkQuery SPARK_CONF_PROPERTIES STATEMENTS_FILE OUT_JSONL");
      System.exit(2);
    }
    Properties conf = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
      conf.load(r);
    }
    List<String> statements =
        statements(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));

    SparkSession.Builder b =
        SparkSession.builder()
            .appName("floe-spark-query")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.jsonGenerator.ignoreNullFields", "false")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    for (String key : conf.stringPropertyNames()) {
      b.config(key, conf.getProperty(key));
      if (key.matches("spark\\.sql\\.catalog\\.[^.]+")
          && !conf.containsKey(key + ".metrics-reporter-impl")) {
        b.config(key + ".metrics-reporter-impl", ScanReports.class.getName());
      }
    }
    try (SparkSession spark = b.getOrCreate();
        BufferedWriter out = Files.newBufferedWriter(Path.of(args[2]), StandardCharsets.UTF_8)) {
      spark.sparkContext().setLogLevel("ERROR");
      for (int i = 0; i < statements.size(); i++) {
        run(spark, i, statements.get(i), out);
        out.flush();
      }
    }
  }

  static List<String> statements(String text) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.trim().equals(";")) {
        add(out, current);
      } else {
        current.append(line).append('\n');
      }
    }
    add(out, current);
    return out;
  }

  private static void add(List<String> out, StringBuilder statement) {
    if (!statement.toString().isBlank()) {
      out.add(statement.toString().trim());
    }
    statement.setLength(0);
  }

  private static void run(SparkSession spark, int index, String sql, Writer out) throws Exception {
    ScanReports.drain();
    long start = System.nanoTime();
    List<String> rows;
    try {
      rows = spark.sql(sql).toJSON().collectAsList();
    } catch (Exception e) {
      ObjectNode error = JSON.createObjectNode().put("statement", index).put("error", describe(e));
      out.write(JSON.writeValueAsString(error) + "\n");
      return;
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    for (String row : rows) {
      out.write("{\"statement\":" + index + ",\"row\":" + row + "}\n");
    }
    for (ScanReport report : ScanReports.drain()) {
      ObjectNode line = JSON.createObjectNode().put("statement", index);
      line.set("scan", scan(report));
      out.write(JSON.writeValueAsString(line) + "\n");
    }
    out.write(
        JSON.writeValueAsString(
                JSON.createObjectNode()
                    .put("statement", index)
                    .put("done", true)
                    .put("rows", rows.size())
                    .put("ms", ms))
            + "\n");
  }

  private static ObjectNode scan(ScanReport report) {
    ScanMetricsResult m = report.scanMetrics();
    return JSON.createObjectNode()
        .put("table", report.tableName())
        .put("snapshotId", report.snapshotId())
        .put("filter", String.valueOf(report.filter()))
        .put("resultDataFiles", count(m.resultDataFiles()))
        .put("skippedDataFiles", count(m.skippedDataFiles()))
        .put("resultDeleteFiles", count(m.resultDeleteFiles()))
        .put("totalDataManifests", count(m.totalDataManifests()))
        .put("scannedDataManifests", count(m.scannedDataManifests()))
        .put("skippedDataManifests", count(m.skippedDataManifests()));
  }

  private static long count(CounterResult c) {
    return c == null ? 0 : c.value();
  }

  /** The exception chain's messages (Spark wraps the catalog's error). */
  private static String describe(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = e;
        t != null && s.length() < 4000;
        t = t.getCause() == t ? null : t.getCause()) {
      if (s.length() > 0) {
        s.append(" <- ");
      }
      s.append(t.getClass().getName()).append(": ").append(t.getMessage());
    }
    return s.toString();
  }
}
