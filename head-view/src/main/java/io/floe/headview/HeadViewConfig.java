package io.floe.headview;

import io.floe.catalog.CatalogConfig;
import io.floe.registry.RegistryConfig;
import io.floe.typed.TypedRules;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.catalog.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The service's settings, read from a properties file: every key has a type, a default, a validator
 * and documentation ({@link #CONFIG_DEF}, the catalog keys shared with the plugin through {@link
 * CatalogConfig}; head-view/README.md holds the generated reference). A bad value fails at start
 * naming its key. Keys under {@code iceberg.} go, prefix removed, to Iceberg's {@code
 * CatalogUtil.buildIcebergCatalog} (the same keys the plugin takes under {@code
 * rsm.config.iceberg.}); under {@code kafka.} to the Kafka consumer and admin clients; under {@code
 * client.} to REST clients as config defaults; under {@code head.write.} over the write properties
 * of head files.
 */
public final class HeadViewConfig extends AbstractConfig {
  public static final String LISTEN_HOST_CONFIG = "listen.host";
  public static final String DEFAULT_LISTEN_HOST = "127.0.0.1";
  static final String LISTEN_HOST_DOC = "Address to bind; only loopback unless set.";

  public static final String LISTEN_PORT_CONFIG = "listen.port";
  public static final int DEFAULT_LISTEN_PORT = 8181;
  static final String LISTEN_PORT_DOC = "Port to listen on (0: any free port).";

  public static final String AUTH_TOKEN_CONFIG = "auth.token";
  static final String AUTH_TOKEN_DOC =
      "When set, every request needs the header 'Authorization: Bearer' followed by the token (else"
          + " 401). Never logged.";

  public static final String SERVER_THREADS_CONFIG = "server.threads";
  public static final int DEFAULT_SERVER_THREADS = 8;
  static final String SERVER_THREADS_DOC = "Request threads.";

  public static final String KAFKA_BOOTSTRAP_SERVERS_CONFIG = "kafka.bootstrap.servers";
  static final String KAFKA_BOOTSTRAP_SERVERS_DOC =
      "The Kafka cluster whose topics are served (host:port,...). Every other key under 'kafka.' goes"
          + " to the Kafka clients too (see the prefixes below).";

  public static final String SCRATCH_LOCATION_CONFIG = "head.scratch-location";
  static final String SCRATCH_LOCATION_DOC =
      "Where head files go: unset, {table location}/floe-head/{instance}/{uuid}/; set,"
          + " {value}/{table uuid}/{instance}/{uuid}/, where {instance} is an id of its own for each"
          + " head-view process. Must be readable by the engines, writable through the table's"
          + " FileIO, and hold nothing else: head views delete what stopped ones left there.";

  public static final String CACHE_TTL_MS_CONFIG = "head.cache-ttl-ms";
  public static final long DEFAULT_CACHE_TTL_MS = 600_000L;
  static final String CACHE_TTL_MS_DOC =
      "How long a superseded head's files are kept (queries that loaded it may still read them)"
          + " before they are deleted.";

  public static final String IDLE_TTL_MS_CONFIG = "head.idle-ttl-ms";
  static final long MIN_IDLE_TTL_MS = 1_000L;
  static final String IDLE_TTL_MS_DOC =
      "How long the current head of a table nobody queries is kept before its files are deleted."
          + " Unset: "
          + CACHE_TTL_MS_CONFIG
          + ", at least "
          + MIN_IDLE_TTL_MS
          + ".";

  public static final String KAFKA_TIMEOUT_MS_CONFIG = "head.kafka-timeout-ms";
  public static final long DEFAULT_KAFKA_TIMEOUT_MS = 30_000L;
  static final String KAFKA_TIMEOUT_MS_DOC = "Bound on each Kafka call and on reading one head.";

  public static final String ON_KAFKA_ERROR_CONFIG = "head.on-kafka-error";
  public static final String DEFAULT_ON_KAFKA_ERROR = "fail";
  static final String ON_KAFKA_ERROR_DOC =
      "What loadTable does when Kafka cannot be read: 'fail' answers 503 naming the topic;"
          + " 'committed' serves the committed snapshot only (logged as a warning).";

  public static final String LEFTOVER_AGE_MS_CONFIG = "head.leftover-age-ms";
  public static final long DEFAULT_LEFTOVER_AGE_MS = 600_000L;
  static final long MIN_LEFTOVER_AGE_MS = 2_000L;
  static final String LEFTOVER_AGE_MS_DOC =
      "Each head-view process writes head files to a folder of its own under a table's scratch"
          + " root and rewrites a marker there every quarter of this while it runs. A folder of"
          + " another process in which nothing was written for this long was left by a head view"
          + " that is gone (killed, or stopped while the object store failed): it is deleted, at"
          + " start for every topic table of table.namespace and for any other table when first"
          + " served. Keep it above the longest object-store outage and the clock skew between"
          + " hosts.";

  public static final String SHUTDOWN_TIMEOUT_MS_CONFIG = "shutdown.timeout.ms";
  public static final long DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000L;
  static final long MAX_SHUTDOWN_TIMEOUT_MS = 600_000L;
  static final String SHUTDOWN_TIMEOUT_MS_DOC =
      "Bound on stopping (SIGTERM or close): closing the listener, deleting this process's head"
          + " files (each object-store request tried once), closing the Kafka clients and the"
          + " catalog. What is not deleted within it, or when the object store fails, is logged"
          + " (folder and count) and deleted later by a head view that starts (see "
          + "head.leftover-age-ms). 0: delete nothing on stop. Keep it below the time a container"
          + " runtime waits before it kills (30 s by default).";

  public static final String ICEBERG_PREFIX = CatalogConfig.ICEBERG_PREFIX;
  public static final String KAFKA_PREFIX = "kafka.";
  public static final String CLIENT_PREFIX = "client.";
  public static final String HEAD_WRITE_PREFIX = "head.write.";

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

  /** What loadTable does when Kafka cannot be read. */
  public enum OnKafkaError {
    FAIL,
    COMMITTED
  }

  public static final ConfigDef CONFIG_DEF = configDef();

  /** Keys whose blank value means unset (as in {@code auth.token=}), not a bad value. */
  private static final Set<String> BLANK_IS_UNSET =
      Set.of(
          LISTEN_PORT_CONFIG,
          AUTH_TOKEN_CONFIG,
          SERVER_THREADS_CONFIG,
          SCRATCH_LOCATION_CONFIG,
          CACHE_TTL_MS_CONFIG,
          IDLE_TTL_MS_CONFIG,
          KAFKA_TIMEOUT_MS_CONFIG,
          LEFTOVER_AGE_MS_CONFIG,
          SHUTDOWN_TIMEOUT_MS_CONFIG);

  private final CatalogConfig catalog;
  private final RegistryConfig registry;
  private final TypedRules typedRules;

  private HeadViewConfig(Map<String, String> props) {
    super(CONFIG_DEF, withoutUnsetValues(props), false);
    this.catalog = new CatalogConfig(this, "");
    this.registry = new RegistryConfig(this);
    this.typedRules = new TypedRules(this, "");
  }

  private static ConfigDef configDef() {
    ConfigDef def =
        new ConfigDef()
            .define(
                LISTEN_HOST_CONFIG,
                Type.STRING,
                DEFAULT_LISTEN_HOST,
                Importance.HIGH,
                LISTEN_HOST_DOC)
            .define(
                LISTEN_PORT_CONFIG,
                Type.INT,
                DEFAULT_LISTEN_PORT,
                ConfigDef.Range.between(0, 65535),
                Importance.HIGH,
                LISTEN_PORT_DOC)
            .define(AUTH_TOKEN_CONFIG, Type.PASSWORD, null, Importance.HIGH, AUTH_TOKEN_DOC)
            .define(
                SERVER_THREADS_CONFIG,
                Type.INT,
                DEFAULT_SERVER_THREADS,
                ConfigDef.Range.between(1, 1024),
                Importance.LOW,
                SERVER_THREADS_DOC);
    CatalogConfig.defineCatalogName(def);
    CatalogConfig.defineTableNamespace(
        def,
        "The plugin's value: a tiered topic that has no table yet is served there as the table the"
            + " plugin will create.");
    CatalogConfig.defineCatalog(def);
    def.define(
            KAFKA_BOOTSTRAP_SERVERS_CONFIG,
            Type.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            KAFKA_BOOTSTRAP_SERVERS_DOC)
        .define(SCRATCH_LOCATION_CONFIG, Type.STRING, null, Importance.MEDIUM, SCRATCH_LOCATION_DOC)
        .define(
            CACHE_TTL_MS_CONFIG,
            Type.LONG,
            DEFAULT_CACHE_TTL_MS,
            ConfigDef.Range.atLeast(0L),
            Importance.LOW,
            CACHE_TTL_MS_DOC)
        .define(
            IDLE_TTL_MS_CONFIG,
            Type.LONG,
            null,
            ConfigDef.LambdaValidator.with(
                (name, value) -> {
                  if (value != null && (Long) value < MIN_IDLE_TTL_MS) {
                    throw new ConfigException(name, value, "must be at least " + MIN_IDLE_TTL_MS);
                  }
                },
                () -> "null or at least " + MIN_IDLE_TTL_MS),
            Importance.LOW,
            IDLE_TTL_MS_DOC)
        .define(
            KAFKA_TIMEOUT_MS_CONFIG,
            Type.LONG,
            DEFAULT_KAFKA_TIMEOUT_MS,
            ConfigDef.Range.atLeast(1L),
            Importance.LOW,
            KAFKA_TIMEOUT_MS_DOC)
        .define(
            ON_KAFKA_ERROR_CONFIG,
            Type.STRING,
            DEFAULT_ON_KAFKA_ERROR,
            ConfigDef.CaseInsensitiveValidString.in("fail", "committed"),
            Importance.MEDIUM,
            ON_KAFKA_ERROR_DOC);
    return TypedRules.define(RegistryConfig.defineRegistry(defineLifecycle(def)));
  }

  /** What happens to head files when a process stops, and after. */
  private static ConfigDef defineLifecycle(ConfigDef def) {
    return def.define(
            LEFTOVER_AGE_MS_CONFIG,
            Type.LONG,
            DEFAULT_LEFTOVER_AGE_MS,
            ConfigDef.Range.atLeast(MIN_LEFTOVER_AGE_MS),
            Importance.LOW,
            LEFTOVER_AGE_MS_DOC)
        .define(
            SHUTDOWN_TIMEOUT_MS_CONFIG,
            Type.LONG,
            DEFAULT_SHUTDOWN_TIMEOUT_MS,
            ConfigDef.Range.between(0L, MAX_SHUTDOWN_TIMEOUT_MS),
            Importance.MEDIUM,
            SHUTDOWN_TIMEOUT_MS_DOC);
  }

  /** The properties without the blank values that mean unset. */
  private static Map<String, String> withoutUnsetValues(Map<String, String> props) {
    Map<String, String> out = new HashMap<>(props);
    out.entrySet()
        .removeIf(
            e ->
                BLANK_IS_UNSET.contains(e.getKey())
                    && (e.getValue() == null || e.getValue().isBlank()));
    return out;
  }

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

  public String listenHost() {
    return getString(LISTEN_HOST_CONFIG);
  }

  public int listenPort() {
    return getInt(LISTEN_PORT_CONFIG);
  }

  /** Null when no token is required. */
  public String authToken() {
    Password token = getPassword(AUTH_TOKEN_CONFIG);
    return token == null ? null : token.value().trim();
  }

  /**
   * The plugin's {@code types.rules}: a tiered topic with no table yet is served as the typed table
   * the plugin will create.
   */
  public TypedRules typedRules() {
    return typedRules;
  }

  /** The schema registry settings ({@code registry.*}), shared with the plugin. */
  public RegistryConfig registry() {
    return registry;
  }

  public String catalogName() {
    return catalog.name();
  }

  /** The catalog as a refused write names it: name, type and URI (without credentials). */
  public String catalogDescription() {
    return catalog.descriptionWithUri();
  }

  /** The plugin's rsm.config.table.namespace: where tables of topics not tiered yet are served. */
  public String tableNamespace() {
    return getString(CatalogConfig.TABLE_NAMESPACE_CONFIG);
  }

  /** {@link #tableNamespace()} as a namespace. */
  public Namespace namespace() {
    return catalog.namespace();
  }

  public int serverThreads() {
    return getInt(SERVER_THREADS_CONFIG);
  }

  /** Null: head files go under each table's location, in {@code floe-head/}. */
  public String scratchLocation() {
    String scratch = getString(SCRATCH_LOCATION_CONFIG);
    return scratch == null || !scratch.endsWith("/")
        ? scratch
        : scratch.substring(0, scratch.length() - 1);
  }

  /** How long a superseded head's files stay (queries may still read them). */
  public long cacheTtlMs() {
    return getLong(CACHE_TTL_MS_CONFIG);
  }

  /** How long the current head of a table nobody queries is kept. */
  public long idleTtlMs() {
    Long idle = getLong(IDLE_TTL_MS_CONFIG);
    return idle != null ? idle : Math.max(MIN_IDLE_TTL_MS, cacheTtlMs());
  }

  public long kafkaTimeoutMs() {
    return getLong(KAFKA_TIMEOUT_MS_CONFIG);
  }

  /** Age after which another process's head-file folder with nothing new is taken for leftovers. */
  public long leftoverAgeMs() {
    return getLong(LEFTOVER_AGE_MS_CONFIG);
  }

  /** Bound on stopping the service. */
  public long shutdownTimeoutMs() {
    return getLong(SHUTDOWN_TIMEOUT_MS_CONFIG);
  }

  public OnKafkaError onKafkaError() {
    return OnKafkaError.valueOf(getString(ON_KAFKA_ERROR_CONFIG).toUpperCase(Locale.ROOT));
  }

  public Map<String, String> catalogProperties() {
    return catalog.properties();
  }

  public Map<String, String> kafkaProperties() {
    return strings(originalsWithPrefix(KAFKA_PREFIX));
  }

  public Map<String, String> clientDefaults() {
    return strings(originalsWithPrefix(CLIENT_PREFIX));
  }

  /**
   * Iceberg {@code write.*} properties for head files, over the table's: defaults plus {@code
   * head.write.*}.
   */
  public Map<String, String> headWriteProperties() {
    Map<String, String> write = new TreeMap<>(HEAD_WRITE_DEFAULTS);
    strings(originalsWithPrefix(HEAD_WRITE_PREFIX)).forEach((k, v) -> write.put("write." + k, v));
    return Map.copyOf(write);
  }

  private static Map<String, String> strings(Map<String, Object> values) {
    Map<String, String> out = new TreeMap<>();
    values.forEach((k, v) -> out.put(k, String.valueOf(v)));
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    // Never the token, nor catalog or Kafka values (they may hold secrets): only which keys are
    // set.
    return "HeadViewConfig{listen="
        + listenHost()
        + ":"
        + listenPort()
        + ", auth="
        + (authToken() != null ? "bearer" : "none")
        + ", catalog="
        + catalogName()
        + " keys "
        + catalogProperties().keySet()
        + ", kafka keys "
        + kafkaProperties().keySet()
        + ", scratch="
        + (scratchLocation() == null ? "<table>/floe-head" : scratchLocation())
        + ", cacheTtlMs="
        + cacheTtlMs()
        + ", idleTtlMs="
        + idleTtlMs()
        + ", kafkaTimeoutMs="
        + kafkaTimeoutMs()
        + ", onKafkaError="
        + onKafkaError()
        + ", leftoverAgeMs="
        + leftoverAgeMs()
        + ", shutdownTimeoutMs="
        + shutdownTimeoutMs()
        + "}";
  }
}
