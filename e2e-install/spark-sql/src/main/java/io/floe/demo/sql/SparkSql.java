package io.floe.demo.sql;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.spark.sql.SparkSession;

/**
 * Real SQL over a Floe topic table: Spark local with Iceberg's SparkCatalog on the broker's own
 * JDBC catalog. The catalog properties are the broker's rsm.config.iceberg.* keys and the Spark
 * catalog is named like the plugin's (rsm.config.catalog.name): JDBC catalogs key their rows by
 * that name.
 *
 * <p>With a head view URI, a second catalog {@code headview} (Iceberg's REST catalog client) reads
 * the same table through the head view: tiered files plus the records not tiered yet.
 *
 * <pre>SparkSql SERVER_PROPERTIES TOPIC_TABLE [HEAD_VIEW_URI]</pre>
 */
public final class SparkSql {
  private SparkSql() {}

  public static void main(String[] args) throws Exception {
    Properties server = new Properties();
    try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
      server.load(r);
    }
    String catalog = server.getProperty("rsm.config.catalog.name", "floe");
    String namespace = server.getProperty("rsm.config.table.namespace", "kafka");
    String table = catalog + "." + namespace + "." + args[1];

    SparkSession.Builder b =
        SparkSession.builder()
            .appName("floe-demo-sql")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog." + catalog, "org.apache.iceberg.spark.SparkCatalog");
    for (String key : server.stringPropertyNames()) {
      if (key.startsWith("rsm.config.iceberg.")) {
        b.config(
            "spark.sql.catalog." + catalog + "." + key.substring("rsm.config.iceberg.".length()),
            server.getProperty(key));
      }
    }
    String headView = args.length > 2 ? args[2] : null;
    if (headView != null) {
      b.config("spark.sql.catalog.headview", "org.apache.iceberg.spark.SparkCatalog")
          .config("spark.sql.catalog.headview.type", "rest")
          .config("spark.sql.catalog.headview.uri", headView)
          // Spark caches loaded tables by default: a later query in the session would miss the
          // newer head.
          .config("spark.sql.catalog.headview.cache-enabled", "false");
      for (String key : server.stringPropertyNames()) {
        String k =
            key.startsWith("rsm.config.iceberg.")
                ? key.substring("rsm.config.iceberg.".length())
                : null;
        if (k != null
            && !k.equals("type")
            && !k.equals("uri")
            && !k.equals("warehouse")
            && !k.startsWith("jdbc.")) {
          b.config(
              "spark.sql.catalog.headview." + k,
              server.getProperty(key)); // the reader's own FileIO settings
        }
      }
    }
    try (SparkSession spark = b.getOrCreate()) {
      spark.sparkContext().setLogLevel("ERROR");
      run(
          spark,
          "SELECT kafka.partition, count(*) AS records, min(kafka.offset) AS first_offset,\n"
              + "       max(kafka.offset) AS last_offset, min(kafka.timestamp) AS first_ts, max(kafka.timestamp) AS last_ts\n"
              + "FROM "
              + table
              + " GROUP BY kafka.partition");
      run(
          spark,
          "SELECT value.customer, count(*) AS orders, round(sum(value.amount), 2) AS revenue\n"
              + "FROM "
              + table
              + "\nGROUP BY 1 ORDER BY revenue DESC");
      run(spark, "SELECT value_status, count(*) AS records FROM " + table + " GROUP BY 1");
      run(
          spark,
          "SELECT kafka.offset, CAST(key AS STRING) AS key, value.order_id, value.customer, value.item,\n"
              + "       value.quantity, value.amount, value_schema_id\n"
              + "FROM "
              + table
              + " ORDER BY kafka.offset LIMIT 3");
      run(
          spark,
          "SELECT snapshot_id, operation, summary['added-records'] AS added_records\n"
              + "FROM "
              + table
              + ".snapshots ORDER BY committed_at");
      if (headView != null) {
        String viewTable = "headview." + namespace + "." + args[1];
        run(
            spark,
            "SELECT 'tiered only: "
                + table
                + "' AS source, count(*) AS records, max(kafka.offset) AS last_offset\n"
                + "FROM "
                + table
                + "\nUNION ALL\n"
                + "SELECT 'head view: "
                + viewTable
                + "', count(*), max(kafka.offset) FROM "
                + viewTable);
        run(
            spark,
            "SELECT value_schema_id, count(*) AS orders, count(value.coupon) AS with_coupon,\n"
                + "       min(kafka.offset) AS first_offset, max(kafka.offset) AS last_offset\n"
                + "FROM "
                + viewTable
                + "\nGROUP BY 1 ORDER BY 1");
        run(
            spark,
            "SELECT kafka.offset, value.customer, value.amount, value.coupon FROM "
                + viewTable
                + "\nORDER BY kafka.offset DESC LIMIT 4");
      }
    }
  }

  private static void run(SparkSession spark, String sql) {
    System.out.println();
    System.out.println("spark-sql> " + sql.replace("\n", "\n        > ") + ";");
    spark.sql(sql).show(50, false);
  }
}
