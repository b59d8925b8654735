package io.floe.headview;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The service's settings, read from a properties file (see head-view/README.md for every key). Keys
 * under {@code iceberg.} go, prefix stripped, to Iceberg's {@code CatalogUtil.buildIcebergCatalog}
 * (the same keys the plugin takes under {@code rsm.config.iceberg.}); keys under {@code kafka.} go,
 * prefix stripped, to the Kafka consumer and admin clients; keys under {@code client.} go, prefix
 * stripped, to REST clients as config defaults.
 */
public final class HeadViewConfig {
  public static final String LISTEN_HOST = "listen.host";
  public static final String LISTEN_PORT = "listen.port";
  public static final String AUTH_TOKEN = "auth.token";
  public static final String CATALOG_NAME = "catalog.name";
  public static final String TABLE_NAMESPACE = "table.namespace";
  public static final String SERVER_THREADS = "server.threads";
  public static final String SCRATCH_LOCATION = "head.scratch-location";
  public static final String CACHE_TTL_MS = "head.cache-ttl-ms";
  public static final String IDLE_TTL_MS = "head.idle-ttl-ms";
  public static final String KAFKA_TIMEOUT_MS = "head.kafka-timeout-ms";
  public static final String ON_KAFKA_ERROR = "head.on-kafka-error";
  public static final String HEAD_WRITE_PREFIX = "head.write.";
  public static final String ICEBERG_PREFIX = "iceberg.";
  public static final String KAFKA_PREFIX = "kafka.";
  public static final String CLIENT_PREFIX = "client.";

  /** What loadTable does when Kafka cannot be read. */
  public enum OnKafkaError {
    FAIL,
    COMMITTED
  }

  private final String listenHost;
  private final int listenPort;
  private final String authToken;
  private final String catalogName;
  private final String tableNamespace;
  private final int serverThreads;
  private final String scratchLocation;
  private final long cacheTtlMs;
  private final long idleTtlMs;
  private final long kafkaTimeoutMs;
  private final OnKafkaError onKafkaError;
  private final Map<String, String> catalogProperties;
  private final Map<String, String> kafkaProperties;
  private final Map<String, String> clientDefaults;
  private final Map<String, String> headWriteProperties;

  private HeadViewConfig(Map<String, String> props) {
    this.listenHost = props.getOrDefault(LISTEN_HOST, "127.0.0.1");
    this.listenPort = intValue(props, LISTEN_PORT, 8181, 0, 65535);
    String token = props.get(AUTH_TOKEN);
    this.authToken = token == null || token.isBlank() ? null : token.trim();
    this.catalogName = props.getOrDefault(CATALOG_NAME, "floe");
    this.tableNamespace = props.getOrDefault(TABLE_NAMESPACE, "kafka").trim();
    if (tableNamespace.isEmpty()
        || java.util.Arrays.stream(tableNamespace.split("\\.", -1)).anyMatch(String::isEmpty)) {
      throw new IllegalArgumentException(
          TABLE_NAMESPACE
              + " is '"
              + tableNamespace
              + "': expected non-empty names separated by dots, as the plugin's");
    }
    this.serverThreads = intValue(props, SERVER_THREADS, 8, 1, 1024);
    String scratch = props.get(SCRATCH_LOCATION);
    this.scratchLocation = scratch == null || scratch.isBlank() ? null : stripSlash(scratch.trim());
    this.cacheTtlMs = longValue(props, CACHE_TTL_MS, 600_000L, 0);
    this.idleTtlMs = longValue(props, IDLE_TTL_MS, Math.max(1_000L, cacheTtlMs), 1_000L);
    this.kafkaTimeoutMs = longValue(props, KAFKA_TIMEOUT_MS, 30_000L, 1);
    String onError = props.getOrDefault(ON_KAFKA_ERROR, "fail").trim();
    try {
      this.onKafkaError = OnKafkaError.valueOf(onError.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ON_KAFKA_ERROR + " is '" + onError + "': expected fail or committed");
    }
    this.catalogProperties = withPrefix(props, ICEBERG_PREFIX);
    this.kafkaProperties = withPrefix(props, KAFKA_PREFIX);
    this.clientDefaults = withPrefix(props, CLIENT_PREFIX);
    Map<String, String> write = new TreeMap<>(HEAD_WRITE_DEFAULTS);
    withPrefix(props, HEAD_WRITE_PREFIX).forEach((k, v) -> write.put("write." + k, v));
    this.headWriteProperties = Map.copyOf(write);
    if (catalogProperties.isEmpty()) {
      throw new IllegalArgumentException(
          "No iceberg.* catalog properties: set at least iceberg.type (or iceberg.catalog-impl), iceberg.uri and"
              + " iceberg.warehouse, the same values the plugin has under rsm.config.iceberg.*");
    }
    if (!kafkaProperties.containsKey("bootstrap.servers")) {
      throw new IllegalArgumentException("kafka.bootstrap.servers is not set");
    }
  }

  /**
   * Iceberg write properties of head files, over the table's own. Head files are short-lived
   * scratch: a cheap codec level, no dictionary for the (usually unique) key and value bytes, and
   * files small enough that the part the real table passes by is cheap to rewrite.
   */
  static final Map<String, String> HEAD_WRITE_DEFAULTS =
      Map.of(
          "write.parquet.compression-codec", "zstd",
          "write.parquet.compression-level", "1",
          "write.parquet.dict-encoding-enabled.column.key", "false",
          "write.parquet.dict-encoding-enabled.column.value", "false",
          "write.target-file-size-bytes", Long.toString(4L << 20));

  public static HeadViewConfig of(Map<String, String> props) {
    return new HeadViewConfig(props);
  }

  public static HeadViewConfig load(Path file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    Map<String, String> props = new TreeMap<>();
    p.stringPropertyNames().forEach(k -> props.put(k, p.getProperty(k)));
    return new HeadViewConfig(props);
  }

  private static Map<String, String> withPrefix(Map<String, String> props, String prefix) {
    Map<String, String> out = new TreeMap<>();
    props.forEach(
        (k, v) -> {
          if (k.startsWith(prefix) && k.length() > prefix.length()) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    return Map.copyOf(out);
  }

  private static int intValue(Map<String, String> props, String key, int dflt, int min, int max) {
    long v = longValue(props, key, dflt, min);
    if (v > max) {
      throw new IllegalArgumentException(key + " is " + v + ": at most " + max);
    }
    return (int) v;
  }

  private static long longValue(Map<String, String> props, String key, long dflt, long min) {
    String raw = props.get(key);
    if (raw == null || raw.isBlank()) {
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " is '" + raw + "': expected a number");
    }
    if (v < min) {
      throw new IllegalArgumentException(key + " is " + v + ": at least " + min);
    }
    return v;
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  public String listenHost() {
    return listenHost;
  }

  public int listenPort() {
    return listenPort;
  }

  /** Null when no token is required. */
  public String authToken() {
    return authToken;
  }

  public String catalogName() {
    return catalogName;
  }

  /** The plugin's rsm.config.table.namespace: where tables of topics not tiered yet are served. */
  public String tableNamespace() {
    return tableNamespace;
  }

  public int serverThreads() {
    return serverThreads;
  }

  /** Null: head files go under each table's location, in {@code floe-head/}. */
  public String scratchLocation() {
    return scratchLocation;
  }

  /** How long a superseded head's files stay (queries may still read them). */
  public long cacheTtlMs() {
    return cacheTtlMs;
  }

  /** How long the current head of a table nobody queries is kept. */
  public long idleTtlMs() {
    return idleTtlMs;
  }

  public long kafkaTimeoutMs() {
    return kafkaTimeoutMs;
  }

  public OnKafkaError onKafkaError() {
    return onKafkaError;
  }

  public Map<String, String> catalogProperties() {
    return catalogProperties;
  }

  public Map<String, String> kafkaProperties() {
    return kafkaProperties;
  }

  public Map<String, String> clientDefaults() {
    return clientDefaults;
  }

  /**
   * Iceberg {@code write.*} properties for head files, over the table's: defaults plus {@code
   * head.write.*}.
   */
  public Map<String, String> headWriteProperties() {
    return headWriteProperties;
  }

  @Override
  public String toString() {
    // Never the token, nor catalog or Kafka values (they may hold secrets): only which keys are
    // set.
    return "HeadViewConfig{listen="
        + listenHost
        + ":"
        + listenPort
        + ", auth="
        + (authToken != null ? "bearer" : "none")
        + ", catalog="
        + catalogName
        + " keys "
        + catalogProperties.keySet()
        + ", kafka keys "
        + kafkaProperties.keySet()
        + ", scratch="
        + (scratchLocation == null ? "<table>/floe-head" : scratchLocation)
        + ", cacheTtlMs="
        + cacheTtlMs
        + ", idleTtlMs="
        + idleTtlMs
        + ", kafkaTimeoutMs="
        + kafkaTimeoutMs
        + ", onKafkaError="
        + onKafkaError
        + "}";
  }
}
