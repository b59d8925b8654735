package io.floe.rsm;

import io.floe.catalog.CatalogConfig;
import io.floe.commit.SegmentCommitter;
import io.floe.layout.TopicTableLayout;
import io.floe.layout.TopicTableOptions;
import io.floe.manifest.BatchDirectory;
import io.floe.registry.RegistryConfig;
import io.floe.typed.TypedRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The plugin's configuration: the broker's {@code rsm.config.*} keys with the prefix stripped (plus
 * {@code broker.id}). Every key has a type, a default, a validator and documentation; see {@link
 * #CONFIG_DEF}. Keys under {@code iceberg.} are passed through, with the prefix stripped, to
 * Iceberg's {@code CatalogUtil.buildIcebergCatalog}; the few listed in {@link #CONFIG_DEF} are
 * documented and checked. The catalog keys are the ones the head view shares ({@link
 * CatalogConfig}).
 */
public final class FloeRsmConfig extends AbstractConfig {
  public static final String ICEBERG_PREFIX = CatalogConfig.ICEBERG_PREFIX;

  public static final String ICEBERG_TYPE = CatalogConfig.ICEBERG_TYPE_CONFIG;
  public static final String ICEBERG_CATALOG_IMPL = CatalogConfig.ICEBERG_CATALOG_IMPL_CONFIG;
  public static final String ICEBERG_URI = CatalogConfig.ICEBERG_URI_CONFIG;
  public static final String ICEBERG_WAREHOUSE = CatalogConfig.ICEBERG_WAREHOUSE_CONFIG;
  public static final String ICEBERG_IO_IMPL = CatalogConfig.ICEBERG_IO_IMPL_CONFIG;
  public static final String STORAGE_PROBE_ENABLE = "storage.probe.enable";
  public static final String CATALOG_NAME = CatalogConfig.CATALOG_NAME_CONFIG;
  public static final String TABLE_NAMESPACE = CatalogConfig.TABLE_NAMESPACE_CONFIG;
  public static final String TABLE_TIME_TRANSFORM = "table.partition.time-transform";
  public static final String TABLE_TARGET_FILE_SIZE = "table.target-file-size-bytes";
  public static final String TABLE_PARQUET_COMPRESSION = "table.parquet.compression";
  public static final String TABLE_ROW_GROUP_SIZE = "table.parquet.row-group-size-bytes";
  public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
  public static final String RETENTION_MODE = "retention.mode";
  public static final String COMMIT_MAX_ATTEMPTS = "commit.max-attempts";
  public static final String COMMIT_BACKOFF_MIN_MS = "commit.backoff.min.ms";
  public static final String COMMIT_BACKOFF_MAX_MS = "commit.backoff.max.ms";
  public static final String CACHE_SEGMENTS_MAX = "cache.segments.max-entries";
  public static final String CACHE_TABLES_EXPIRATION_MS = "cache.tables.expiration.ms";
  public static final String OPERATION_TIMEOUT_MS = "operation.timeout.ms";
  public static final String COPY_TIMEOUT_MS = "copy.timeout.ms";
  public static final String SNAPSHOT_EXPIRY_INTERVAL_MS = "snapshot.expiry.interval.ms";
  public static final String BROKER_ID = "broker.id";

  public static final long DEFAULT_OPERATION_TIMEOUT_MS = 30_000;
  public static final long DEFAULT_COPY_TIMEOUT_MS = 300_000;
  private static final long MIN_TIMEOUT_MS = 100;
  public static final long DEFAULT_SNAPSHOT_EXPIRY_INTERVAL_MS = 60_000;
  private static final long MIN_SNAPSHOT_EXPIRY_INTERVAL_MS = 1_000;

  /** How deleting a remote segment treats its rows. */
  public enum RetentionMode {
    /** Kafka's retention also removes the rows from the table. */
    DELETE,
    /** Rows stay in the table past Kafka's retention; only the segment's sidecar goes. */
    KEEP
  }

  private static final List<String> COMPRESSIONS =
      List.of("zstd", "snappy", "gzip", "lz4", "brotli", "uncompressed");
  private static final List<String> TIME_TRANSFORMS =
      List.of("none", "hour", "day", "month", "year");

  private static final Pattern SENSITIVE =
      Pattern.compile(
          "secret|password|passwd|token|credential|access-key|access\\.key|accesskey|private-key|"
              + "session-key|sas|signature|auth",
          Pattern.CASE_INSENSITIVE);

  public static final ConfigDef CONFIG_DEF = configDef();

  private static ConfigDef configDef() {
    ConfigDef def =
        CatalogConfig.defineCatalog(new ConfigDef())
            .define(
                STORAGE_PROBE_ENABLE,
                Type.BOOLEAN,
                true,
                new BooleanValidator(),
                Importance.MEDIUM,
                "Whether configure writes and deletes one small object under "
                    + ICEBERG_WAREHOUSE
                    + " (through the "
                    + "FileIO of "
                    + ICEBERG_IO_IMPL
                    + ", else Iceberg's ResolvingFileIO) before the broker starts. "
                    + "A missing bucket or refused credentials then fail broker start naming the key; a store that "
                    + "cannot be reached only logs a warning. Skipped for REST catalogs and warehouses that are not "
                    + "URIs.");
    CatalogConfig.defineCatalogName(def);
    CatalogConfig.defineTableNamespace(
        def, "Created on first use when the catalog supports namespaces.");
    RegistryConfig.defineRegistry(def);
    TypedRules.define(def);
    return FetchConfig.define(defineCaches(defineTimeouts(defineCommits(defineTables(def)))));
  }

  /** How new topic tables are laid out and what Floe serves beside their rows. */
  private static ConfigDef defineTables(ConfigDef def) {
    return def.define(
            TABLE_TIME_TRANSFORM,
            Type.STRING,
            "day",
            ConfigDef.CaseInsensitiveValidString.in(TIME_TRANSFORMS.toArray(String[]::new)),
            Importance.MEDIUM,
            "Partition transform on kafka.timestamp for new topic tables, besides identity on kafka.partition: "
                + "one of "
                + TIME_TRANSFORMS
                + ". Changing it affects only tables created afterwards.")
        .define(
            TABLE_TARGET_FILE_SIZE,
            Type.LONG,
            TopicTableOptions.DEFAULT_TARGET_FILE_SIZE,
            ConfigDef.Range.atLeast(1024L * 1024),
            Importance.LOW,
            "Target size in bytes of the Parquet data files of new topic tables (write.target-file-size-bytes); "
                + "a segment larger than this is split into several files. At least 1 MiB.")
        .define(
            TABLE_PARQUET_COMPRESSION,
            Type.STRING,
            TopicTableOptions.DEFAULT_COMPRESSION,
            ConfigDef.CaseInsensitiveValidString.in(COMPRESSIONS.toArray(String[]::new)),
            Importance.LOW,
            "Parquet compression codec of new topic tables (write.parquet.compression-codec): one of "
                + COMPRESSIONS
                + ".")
        .define(
            TABLE_ROW_GROUP_SIZE,
            Type.LONG,
            TopicTableOptions.DEFAULT_ROW_GROUP_SIZE,
            ConfigDef.Range.atLeast(64L * 1024),
            Importance.LOW,
            "Parquet row group size in bytes of new topic tables (write.parquet.row-group-size-bytes); "
                + "bounds the memory a copy buffers per open file. At least 64 KiB.")
        .define(
            INDEX_INTERVAL_BYTES,
            Type.INT,
            BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
            ConfigDef.Range.atLeast(1),
            Importance.LOW,
            "Bytes of re-encoded batches between two entries of the offset index Floe derives and serves for a "
                + "remote segment (like the topic's index.interval.bytes).");
  }

  /** What deletes do to rows, and how commits retry. */
  private static ConfigDef defineCommits(ConfigDef def) {
    return def.define(
            RETENTION_MODE,
            Type.STRING,
            "delete",
            ConfigDef.CaseInsensitiveValidString.in("delete", "keep"),
            Importance.HIGH,
            "What Kafka deleting a remote segment (retention, topic deletion) does to its rows: 'delete' removes "
                + "them from the table (one metadata commit); 'keep' leaves them in the table as history and "
                + "only removes the segment's sidecar.")
        .define(
            COMMIT_MAX_ATTEMPTS,
            Type.INT,
            SegmentCommitter.DEFAULT_MAX_ATTEMPTS,
            ConfigDef.Range.atLeast(1),
            Importance.LOW,
            "Attempts of one segment's Iceberg commit when it conflicts with concurrent writers.")
        .define(
            COMMIT_BACKOFF_MIN_MS,
            Type.LONG,
            SegmentCommitter.DEFAULT_MIN_BACKOFF_MS,
            ConfigDef.Range.atLeast(0L),
            Importance.LOW,
            "First backoff in milliseconds between commit attempts; it doubles up to "
                + COMMIT_BACKOFF_MAX_MS
                + ".")
        .define(
            COMMIT_BACKOFF_MAX_MS,
            Type.LONG,
            SegmentCommitter.DEFAULT_MAX_BACKOFF_MS,
            ConfigDef.Range.atLeast(0L),
            Importance.LOW,
            "Longest backoff in milliseconds between commit attempts; at least "
                + COMMIT_BACKOFF_MIN_MS
                + ".")
        .define(
            SNAPSHOT_EXPIRY_INTERVAL_MS,
            Type.LONG,
            DEFAULT_SNAPSHOT_EXPIRY_INTERVAL_MS,
            ConfigDef.LambdaValidator.with(
                (name, value) -> {
                  long ms = (Long) value;
                  if (ms != 0 && ms < MIN_SNAPSHOT_EXPIRY_INTERVAL_MS) {
                    throw new ConfigException(name, value, "must be 0 (off) or at least 1000");
                  }
                },
                () -> "0 or at least 1000"),
            Importance.MEDIUM,
            "Milliseconds between two runs of the broker's snapshot expiry, which expires the snapshots "
                + "of the topic tables the broker copied into in the last 10 minutes, by each table's "
                + "history.expire.* properties, and deletes the files they leave unreferenced except data "
                + "files a remote segment Kafka still serves reads. 0 turns it off (expire snapshots with "
                + "an engine instead).");
  }

  /** How long a call may hold the broker's thread. */
  private static ConfigDef defineTimeouts(ConfigDef def) {
    return def.define(
            OPERATION_TIMEOUT_MS,
            Type.LONG,
            DEFAULT_OPERATION_TIMEOUT_MS,
            ConfigDef.Range.atLeast(MIN_TIMEOUT_MS),
            Importance.MEDIUM,
            "Longest time in milliseconds a fetch (until its stream is ready), an index fetch or a delete "
                + "holds the broker's thread, and the longest a copy spends loading its table, writing its "
                + "sidecar or committing (each a wait on the catalog or on table metadata in storage). Beyond "
                + "it the call fails with a retriable error naming this key and what it was waiting for; its "
                + "work is interrupted and abandoned, and a copy cut short either commits whole or leaves "
                + "nothing in the table. Kafka retries the call.")
        .define(
            COPY_TIMEOUT_MS,
            Type.LONG,
            DEFAULT_COPY_TIMEOUT_MS,
            ConfigDef.Range.atLeast(MIN_TIMEOUT_MS),
            Importance.MEDIUM,
            "Longest time in milliseconds a copy holds the broker's thread in all (writing a segment's "
                + "data takes time in proportion to its size: keep this well above the copy time of the "
                + "largest segment). Beyond it the copy fails as for "
                + OPERATION_TIMEOUT_MS
                + ".");
  }

  private static ConfigDef defineCaches(ConfigDef def) {
    return def.define(
            CACHE_SEGMENTS_MAX,
            Type.INT,
            128,
            ConfigDef.Range.atLeast(1),
            Importance.LOW,
            "Opened remote segments (parsed sidecars: indexes and batch directory) kept in memory for fetches, each with the readers of up to two finished fetches for a fetch that continues one (16 such readers in all).")
        .define(
            CACHE_TABLES_EXPIRATION_MS,
            Type.LONG,
            60_000L,
            ConfigDef.Range.atLeast(1L),
            Importance.LOW,
            "How long a loaded topic table stays cached after its last use. Commits always refresh the table "
                + "first, so this only bounds how stale a fetch's view of the table can be.")
        .define(
            BROKER_ID,
            Type.INT,
            -1,
            ConfigDef.Range.atLeast(-1),
            Importance.LOW,
            "Set by the broker: its id, used in log lines and metric names.");
  }

  private final CatalogConfig catalog;
  private final RegistryConfig registry;
  private final TypedRules typedRules;

  public FloeRsmConfig(Map<String, ?> props) {
    super(CONFIG_DEF, props, false);
    this.catalog = new CatalogConfig(this, "rsm.config.");
    this.registry = new RegistryConfig(this);
    this.typedRules = new TypedRules(this, "rsm.config.");
    if (typedRules.anyTyped() && !registry.enabled()) {
      throw new ConfigException(
          RegistryConfig.URL_CONFIG,
          "",
          "rsm.config."
              + TypedRules.RULES_CONFIG
              + " gives topics typed columns: set the registry");
    }
    if (getLong(COMMIT_BACKOFF_MAX_MS) < getLong(COMMIT_BACKOFF_MIN_MS)) {
      throw new ConfigException(
          COMMIT_BACKOFF_MAX_MS,
          getLong(COMMIT_BACKOFF_MAX_MS),
          "must be at least "
              + COMMIT_BACKOFF_MIN_MS
              + " ("
              + getLong(COMMIT_BACKOFF_MIN_MS)
              + ")");
    }
  }

  /** The catalog properties: every {@code iceberg.*} key with the prefix removed. */
  public Map<String, String> catalogProperties() {
    return catalog.properties();
  }

  public String catalogName() {
    return catalog.name();
  }

  /** What identifies the catalog in messages: its name and type (never its properties). */
  public String catalogDescription() {
    return catalog.description();
  }

  public Namespace namespace() {
    return catalog.namespace();
  }

  public TopicTableOptions tableOptions() {
    return TopicTableOptions.builder()
        .namespace(namespace())
        .timeTransform(
            TopicTableLayout.TimeTransform.parse(
                getString(TABLE_TIME_TRANSFORM).toLowerCase(Locale.ROOT)))
        .targetFileSizeBytes(getLong(TABLE_TARGET_FILE_SIZE))
        .rowGroupSizeBytes(getLong(TABLE_ROW_GROUP_SIZE))
        .parquetCompression(getString(TABLE_PARQUET_COMPRESSION).toLowerCase(Locale.ROOT))
        .typedRules(typedRules)
        .build();
  }

  /** The schema registry settings (not {@link RegistryConfig#enabled()} when none is set). */
  public RegistryConfig registry() {
    return registry;
  }

  public RetentionMode retentionMode() {
    return RetentionMode.valueOf(getString(RETENTION_MODE).toUpperCase(Locale.ROOT));
  }

  public int commitMaxAttempts() {
    return getInt(COMMIT_MAX_ATTEMPTS);
  }

  public long commitBackoffMinMs() {
    return getLong(COMMIT_BACKOFF_MIN_MS);
  }

  public long commitBackoffMaxMs() {
    return getLong(COMMIT_BACKOFF_MAX_MS);
  }

  public int indexIntervalBytes() {
    return getInt(INDEX_INTERVAL_BYTES);
  }

  public int segmentCacheSize() {
    return getInt(CACHE_SEGMENTS_MAX);
  }

  public long tableCacheExpirationMs() {
    return getLong(CACHE_TABLES_EXPIRATION_MS);
  }

  public long operationTimeoutMs() {
    return getLong(OPERATION_TIMEOUT_MS);
  }

  public long copyTimeoutMs() {
    return getLong(COPY_TIMEOUT_MS);
  }

  public long snapshotExpiryIntervalMs() {
    return getLong(SNAPSHOT_EXPIRY_INTERVAL_MS);
  }

  public int brokerId() {
    return getInt(BROKER_ID);
  }

  /** Whether a key names a credential: its value is never logged nor put in a message. */
  public static boolean isSensitive(String key) {
    return SENSITIVE.matcher(key).find();
  }

  /** The values of sensitive keys, to scrub from messages of exceptions that may quote them. */
  public List<String> sensitiveValues() {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, ?> e : originals().entrySet()) {
      if (isSensitive(e.getKey()) && e.getValue() != null) {
        Object v = e.getValue();
        String s =
            v instanceof org.apache.kafka.common.config.types.Password p ? p.value() : v.toString();
        if (!s.isEmpty()) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** Every key as the plugin sees it (defaults included), credentials masked: safe to log. */
  public Map<String, String> effectiveConfig() {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, ?> e : values().entrySet()) {
      out.put(e.getKey(), mask(e.getKey(), e.getValue()));
    }
    for (Map.Entry<String, ?> e : originals().entrySet()) {
      if (!out.containsKey(e.getKey())) {
        out.put(e.getKey(), mask(e.getKey(), e.getValue()));
      }
    }
    return out;
  }

  /** Keys that are neither defined nor passed through to Iceberg: likely typos. */
  public List<String> unknownKeys() {
    List<String> out = new ArrayList<>();
    for (String key : originals().keySet()) {
      // Kafka 4.4 also hands the plugin node.id (the KRaft name of broker.id).
      if (!CONFIG_DEF.names().contains(key)
          && !key.startsWith(ICEBERG_PREFIX)
          && !key.startsWith(TypedRules.RULE_PREFIX)
          && !key.equals("node.id")) {
        out.add(key);
      }
    }
    out.sort(null);
    return out;
  }

  private static String mask(String key, Object value) {
    if (value == null) {
      return "null";
    }
    if (isSensitive(key) || value instanceof org.apache.kafka.common.config.types.Password) {
      return "[hidden]";
    }
    return Redactor.scrubEmbedded(value.toString());
  }

  /** The documentation of every key, as an HTML table (for the README). */
  public static String documentation() {
    return CONFIG_DEF.toHtmlTable();
  }
}
