package io.floe.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Real Spark SQL (4.1 local + Iceberg's Spark runtime) as a child JVM with its own classpath (its
 * jars clash with the broker's): runs io.floe.demo.sql.SparkQuery from e2e-install/spark-sql over a
 * list of statements, in one Spark session, and returns each statement's rows and Iceberg scan
 * reports. Spark starts in ~20 s: run one batch per test class.
 */
public final class SparkSqlRunner {
  public static final List<String> ADD_OPENS =
      List.of(
          "java.lang",
          "java.lang.invoke",
          "java.lang.reflect",
          "java.io",
          "java.net",
          "java.nio",
          "java.util",
          "java.util.concurrent",
          "java.util.concurrent.atomic",
          "sun.nio.ch",
          "sun.nio.cs",
          "sun.security.action",
          "sun.util.calendar",
          "jdk.internal.misc",
          "jdk.internal.ref",
          "sun.nio.fs");
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One statement's outcome: rows (Dataset.toJSON objects), Iceberg scans it planned, or the error.
   */
  public record Result(String sql, List<JsonNode> rows, List<JsonNode> scans, String error) {
    public Result requireOk() {
      if (error != null) {
        throw new AssertionError("Spark failed on: " + sql + "\n  " + error);
      }
      return this;
    }

    /** The one Iceberg scan of {@code table} (a name ending so) this statement planned. */
    public JsonNode scanOf(String table) {
      List<JsonNode> of =
          scans.stream().filter(s -> s.get("table").asText().endsWith(table)).toList();
      if (of.size() != 1) {
        throw new AssertionError(
            "expected one scan of " + table + " for: " + sql + ", got " + scans);
      }
      return of.get(0);
    }
  }

  private SparkSqlRunner() {}

  /**
   * The Spark settings of an Iceberg catalog named {@code name} with these Iceberg catalog
   * properties.
   */
  public static Map<String, String> icebergCatalog(
      String name, Map<String, String> catalogProperties) {
    Map<String, String> conf = new java.util.TreeMap<>();
    conf.put("spark.sql.catalog." + name, "org.apache.iceberg.spark.SparkCatalog");
    conf.put("spark.sql.catalog." + name + ".cache-enabled", "false");
    catalogProperties.forEach((k, v) -> conf.put("spark.sql.catalog." + name + "." + k, v));
    return conf;
  }

  public static List<Result> run(
      Path workDir, Map<String, String> sparkConf, List<String> statements, Duration timeout)
      throws IOException, InterruptedException {
    Path sparkDir =
        Path.of(System.getProperty("floe.spark.dir", "../e2e-install/spark-sql/target"));
    Path classpathFile = sparkDir.resolve("spark-classpath.txt");
    if (!Files.isRegularFile(classpathFile) || !Files.isDirectory(sparkDir.resolve("classes"))) {
      throw new IllegalStateException(
          classpathFile
              + " is missing: build the Spark module first"
              + " (mvn -B -ntp install -f e2e-install/spark-sql/pom.xml -DskipTests)");
    }
    Files.createDirectories(workDir);
    Path confFile = workDir.resolve("spark.properties");
    Properties props = new Properties();
    props.putAll(sparkConf);
    try (var w = Files.newBufferedWriter(confFile, StandardCharsets.UTF_8)) {
      props.store(w, "SparkSqlRunner");
    }
    Path sqlFile = workDir.resolve("statements.sql");
    Files.writeString(sqlFile, String.join("\n;\n", statements) + "\n", StandardCharsets.UTF_8);
    Path out = workDir.resolve("results.jsonl");
    Path log = workDir.resolve("spark.log");

    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    ADD_OPENS.forEach(p -> command.add("--add-opens=java.base/" + p + "=ALL-UNNAMED"));
    command.add("-cp");
    command.add(
        sparkDir.resolve("classes")
            + java.io.File.pathSeparator
            + Files.readString(classpathFile, StandardCharsets.UTF_8).trim());
    command.add("io.floe.demo.sql.SparkQuery");
    command.add(confFile.toString());
    command.add(sqlFile.toString());
    command.add(out.toString());
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(
            "Spark did not finish within " + timeout + "; its log ends:\n" + tail(log));
      }
    } finally {
      process.destroyForcibly();
    }
    if (process.exitValue() != 0) {
      throw new AssertionError(
          "Spark exited with " + process.exitValue() + "; its log ends:\n" + tail(log));
    }
    return results(statements, Files.readAllLines(out, StandardCharsets.UTF_8));
  }

  private static List<Result> results(List<String> statements, List<String> lines)
      throws IOException {
    List<List<JsonNode>> rows = new ArrayList<>();
    List<List<JsonNode>> scans = new ArrayList<>();
    String[] errors = new String[statements.size()];
    boolean[] finished = new boolean[statements.size()];
    for (int i = 0; i < statements.size(); i++) {
      rows.add(new ArrayList<>());
      scans.add(new ArrayList<>());
    }
    for (String line : lines) {
      JsonNode node = JSON.readTree(line);
      int i = node.get("statement").asInt();
      if (node.has("row")) {
        rows.get(i).add(node.get("row"));
      } else if (node.has("scan")) {
        scans.get(i).add(node.get("scan"));
      } else if (node.has("error")) {
        errors[i] = node.get("error").asText();
        finished[i] = true;
      } else if (node.has("done")) {
        finished[i] = true;
      }
    }
    List<Result> out = new ArrayList<>();
    for (int i = 0; i < statements.size(); i++) {
      if (!finished[i]) {
        throw new AssertionError(
            "Spark wrote no result for statement " + i + ": " + statements.get(i));
      }
      out.add(new Result(statements.get(i), rows.get(i), scans.get(i), errors[i]));
    }
    return out;
  }

  private static String tail(Path log) throws IOException {
    if (!Files.exists(log)) {
      return "(no log)";
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
