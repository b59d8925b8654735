package io.floe.layout;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The table layout every Floe topic table has: a public contract (see the README), versioned by
 * {@link #LAYOUT_VERSION}. Catalogs assign field ids when a table is created: code looks fields up
 * by name.
 */
public final class TopicTableLayout {
  public static final int LAYOUT_VERSION = 1;

  /** The layout of tables with typed keys or values ({@link TypedColumns}). */
  public static final int TYPED_LAYOUT_VERSION = 2;

  public static final String KAFKA = "kafka";
  public static final String PARTITION = "kafka.partition";
  public static final String OFFSET = "kafka.offset";
  public static final String TIMESTAMP = "kafka.timestamp";
  public static final String PRODUCER_ID = "kafka.producer_id";

  public static final String PROP_TOPIC = "kafka.topic";
  public static final String PROP_TOPIC_ID = "kafka.topic-id";
  public static final String PROP_LAYOUT_VERSION = "floe.layout-version";

  public static final String CREATE_TIME = "CREATE_TIME";
  public static final String LOG_APPEND_TIME = "LOG_APPEND_TIME";

  static final Types.StructType HEADER =
      Types.StructType.of(
          Types.NestedField.required(401, "key", Types.StringType.get()),
          Types.NestedField.optional(402, "value", Types.BinaryType.get()));

  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(
              1,
              KAFKA,
              Types.StructType.of(
                  Types.NestedField.required(101, "partition", Types.IntegerType.get()),
                  Types.NestedField.required(102, "offset", Types.LongType.get()),
                  Types.NestedField.required(
                      103,
                      "timestamp",
                      Types.TimestampType.withZone(),
                      "The timestamp a consumer sees: the record's for CREATE_TIME, the batch's for LOG_APPEND_TIME"),
                  Types.NestedField.required(104, "timestamp_type", Types.StringType.get()),
                  Types.NestedField.required(105, "leader_epoch", Types.IntegerType.get()),
                  Types.NestedField.required(106, "producer_id", Types.LongType.get()),
                  Types.NestedField.required(107, "producer_epoch", Types.IntegerType.get()),
                  Types.NestedField.required(
                      108,
                      "sequence",
                      Types.IntegerType.get(),
                      "-1 when the producer is not idempotent"),
                  Types.NestedField.required(109, "is_transactional", Types.BooleanType.get()),
                  Types.NestedField.optional(
                      110,
                      "create_timestamp",
                      Types.TimestampType.withZone(),
                      "The producer's own timestamp of a LOG_APPEND_TIME record; null for CREATE_TIME"))),
          Types.NestedField.optional(2, "key", Types.BinaryType.get()),
          Types.NestedField.optional(3, "value", Types.BinaryType.get()),
          Types.NestedField.required(
              4,
              "headers",
              Types.ListType.ofRequired(400, HEADER),
              "In record order; duplicates kept"));

  private TopicTableLayout() {}

  /** Identity on the Kafka partition plus a time transform on the record timestamp. */
  public static PartitionSpec partitionSpec(TimeTransform transform) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(SCHEMA).identity(PARTITION);
    switch (transform) {
      case HOUR -> builder.hour(TIMESTAMP);
      case DAY -> builder.day(TIMESTAMP);
      case MONTH -> builder.month(TIMESTAMP);
      case YEAR -> builder.year(TIMESTAMP);
      case NONE -> {}
    }
    return builder.build();
  }

  /**
   * The columns holding record payloads as bytes: keys, values and header values, where a binary
   * column holds them.
   */
  static final List<String> PAYLOAD_COLUMNS = List.of("key", "value", "headers.element.value");

  /**
   * Table properties that turn Parquet's column statistics off for the payload columns of {@code
   * schema} that are binary. Parquet compares every value with its page's and row group's minimum
   * and maximum, a tenth to a fifth of a copy's CPU for 100-byte records, for bounds that prune
   * nothing (payloads are opaque bytes, their order meaningless); Iceberg then records no bounds or
   * null counts for these columns. Typed payload columns keep their statistics.
   */
  public static Map<String, String> payloadStatisticsOff(Schema schema) {
    Map<String, String> props = new TreeMap<>();
    for (String column : PAYLOAD_COLUMNS) {
      Types.NestedField field = schema.findField(column);
      if (field != null && field.type().typeId() == Type.TypeID.BINARY) {
        props.put(TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX + column, "false");
      }
    }
    return props;
  }

  public static SortOrder sortOrder() {
    return SortOrder.builderFor(SCHEMA).asc(OFFSET, NullOrder.NULLS_LAST).build();
  }

  /** The time transform applied to {@code kafka.timestamp} in the partition spec. */
  public enum TimeTransform {
    NONE,
    HOUR,
    DAY,
    MONTH,
    YEAR;

    public static TimeTransform parse(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Unknown time transform '" + value + "': expected one of none, hour, day, month, year");
      }
    }
  }
}
