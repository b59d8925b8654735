package io.floe.layout;

import io.floe.typed.TypedRules;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;

/**
 * How Floe creates topic tables: namespace, partitioning and Parquet settings. Immutable; see
 * {@link #builder()}.
 */
public final class TopicTableOptions {
  public static final long DEFAULT_TARGET_FILE_SIZE = 128L * 1024 * 1024;
  public static final long DEFAULT_ROW_GROUP_SIZE = 16L * 1024 * 1024;
  public static final String DEFAULT_COMPRESSION = "zstd";

  /** Iceberg's commit retries (the {@code commit.retry.*} table properties) unless set. */
  static final int COMMIT_RETRIES = 20;

  static final long COMMIT_MIN_WAIT_MS = 5;
  static final long COMMIT_MAX_WAIT_MS = 100;

  /** Snapshots younger than this are kept (the {@code history.expire.*} properties) unless set. */
  static final long EXPIRE_MAX_SNAPSHOT_AGE_MS = 3_600_000;

  static final int EXPIRE_MIN_SNAPSHOTS_TO_KEEP = 100;
  static final int METADATA_PREVIOUS_VERSIONS_MAX = 50;

  /**
   * Largest Parquet dictionary of a column per row group (the {@code write.parquet.dict-size-bytes}
   * property) unless set: Iceberg's 2 MiB keeps a column of mostly distinct strings (ids, e-mail
   * addresses, SKUs) in a dictionary of tens of thousands of entries, each value a hash lookup that
   * misses the CPU cache, before Parquet finds the dictionary does not pay. At 64 KiB such columns
   * fall back to plain encoding early, while the columns a dictionary serves (a status, a currency,
   * a country: hundreds of values at most) keep it. Typed Avro copies took a third less CPU.
   */
  static final int PARQUET_DICT_SIZE_BYTES = 64 * 1024;

  private final Namespace namespace;
  private final TopicTableLayout.TimeTransform timeTransform;
  private final long targetFileSizeBytes;
  private final long rowGroupSizeBytes;
  private final String parquetCompression;
  private final Map<String, String> extraTableProperties;
  private final TypedRules typedRules;

  private TopicTableOptions(Builder b) {
    this.typedRules = b.typedRules;
    this.namespace = b.namespace;
    this.timeTransform = b.timeTransform;
    this.targetFileSizeBytes = b.targetFileSizeBytes;
    this.rowGroupSizeBytes = b.rowGroupSizeBytes;
    this.parquetCompression = b.parquetCompression;
    this.extraTableProperties = Map.copyOf(b.extraTableProperties);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Namespace namespace() {
    return namespace;
  }

  public TopicTableLayout.TimeTransform timeTransform() {
    return timeTransform;
  }

  public long targetFileSizeBytes() {
    return targetFileSizeBytes;
  }

  /** The key and value formats of a new table of {@code topic}: binary unless a rule says. */
  public TypedRules.TopicFormats formatsFor(String topic) {
    return typedRules == null ? TypedRules.TopicFormats.BINARY : typedRules.formatsFor(topic);
  }

  /** Table properties a new topic table is created with. */
  public Map<String, String> tableProperties() {
    Map<String, String> props = new HashMap<>(extraTableProperties);
    // Brokers leading the table's partitions commit into it at once: a commit that loses the race
    // to another broker's tries again on the new metadata, soon (Iceberg's default waits 100 ms
    // and doubles to a minute, by which time the winner committed again) and more often (the
    // default 4 tries run out while the other brokers go on committing).
    props.putIfAbsent(TableProperties.COMMIT_NUM_RETRIES, Integer.toString(COMMIT_RETRIES));
    props.putIfAbsent(TableProperties.COMMIT_MIN_RETRY_WAIT_MS, Long.toString(COMMIT_MIN_WAIT_MS));
    props.putIfAbsent(TableProperties.COMMIT_MAX_RETRY_WAIT_MS, Long.toString(COMMIT_MAX_WAIT_MS));
    // A snapshot per copied segment or group of segments: without expiry the metadata file (written
    // whole by every commit, re-read by every lost race) grows by about 1 KB per snapshot for ever.
    props.putIfAbsent(
        TableProperties.MAX_SNAPSHOT_AGE_MS, Long.toString(EXPIRE_MAX_SNAPSHOT_AGE_MS));
    props.putIfAbsent(
        TableProperties.MIN_SNAPSHOTS_TO_KEEP, Integer.toString(EXPIRE_MIN_SNAPSHOTS_TO_KEEP));
    props.putIfAbsent(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
    props.putIfAbsent(
        TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
        Integer.toString(METADATA_PREVIOUS_VERSIONS_MAX));
    props.putIfAbsent(
        TableProperties.PARQUET_DICT_SIZE_BYTES, Integer.toString(PARQUET_DICT_SIZE_BYTES));
    props.put(TableProperties.FORMAT_VERSION, "2");
    props.put(TableProperties.PARQUET_COMPRESSION, parquetCompression);
    props.put(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(targetFileSizeBytes));
    props.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(rowGroupSizeBytes));
    props.put(TableProperties.DELETE_MODE, "merge-on-read");
    props.put(
        TopicTableLayout.PROP_LAYOUT_VERSION, Integer.toString(TopicTableLayout.LAYOUT_VERSION));
    return props;
  }

  public static final class Builder {
    private Namespace namespace = Namespace.of("kafka");
    private TopicTableLayout.TimeTransform timeTransform = TopicTableLayout.TimeTransform.DAY;
    private long targetFileSizeBytes = DEFAULT_TARGET_FILE_SIZE;
    private long rowGroupSizeBytes = DEFAULT_ROW_GROUP_SIZE;
    private String parquetCompression = DEFAULT_COMPRESSION;
    private final Map<String, String> extraTableProperties = new HashMap<>();
    private TypedRules typedRules;

    /** The rules that give new tables typed key and value columns. */
    public Builder typedRules(TypedRules value) {
      this.typedRules = value;
      return this;
    }

    public Builder namespace(Namespace value) {
      this.namespace = Objects.requireNonNull(value, "namespace");
      return this;
    }

    public Builder timeTransform(TopicTableLayout.TimeTransform value) {
      this.timeTransform = Objects.requireNonNull(value, "timeTransform");
      return this;
    }

    public Builder targetFileSizeBytes(long value) {
      if (value < 1024 * 1024) {
        throw new IllegalArgumentException("target file size must be at least 1 MiB, got " + value);
      }
      this.targetFileSizeBytes = value;
      return this;
    }

    public Builder rowGroupSizeBytes(long value) {
      if (value < 64 * 1024) {
        throw new IllegalArgumentException("row group size must be at least 64 KiB, got " + value);
      }
      this.rowGroupSizeBytes = value;
      return this;
    }

    public Builder parquetCompression(String value) {
      this.parquetCompression = Objects.requireNonNull(value, "parquetCompression");
      return this;
    }

    public Builder tableProperty(String key, String value) {
      this.extraTableProperties.put(key, value);
      return this;
    }

    public TopicTableOptions build() {
      return new TopicTableOptions(this);
    }
  }
}
