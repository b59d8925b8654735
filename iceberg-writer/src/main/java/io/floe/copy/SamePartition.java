package io.floe.copy;

import io.floe.layout.TopicTableLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SerializableFunction;

/**
 * Tells from a row's Kafka partition and timestamp alone that it belongs to the table partition of
 * the row before it, so that a copy or a head build computes a row's partition only when that may
 * have changed. When each field of the spec takes {@code kafka.partition} or {@code
 * kafka.timestamp}, rows of the same Kafka partition whose timestamps the spec's transforms map to
 * the same values share a partition. A spec with any other source field (a user may evolve the
 * spec) tells nothing: every row then has its partition computed.
 */
public final class SamePartition {
  private final List<TimeField> timeFields;
  private final boolean known;
  private boolean hasPrevious;
  private int previousKafkaPartition;

  private SamePartition(List<TimeField> timeFields, boolean known) {
    this.timeFields = timeFields;
    this.known = known;
  }

  public static SamePartition of(PartitionSpec spec, Schema schema) {
    Types.NestedField partition = schema.findField(TopicTableLayout.PARTITION);
    Types.NestedField timestamp = schema.findField(TopicTableLayout.TIMESTAMP);
    List<TimeField> timeFields = new ArrayList<>();
    boolean known = partition != null && timestamp != null;
    for (PartitionField field : spec.fields()) {
      if (!known) {
        break;
      }
      if (field.sourceId() == timestamp.fieldId()) {
        timeFields.add(new TimeField(field.transform(), timestamp.type()));
      } else if (field.sourceId() != partition.fieldId()) {
        known = false;
      }
    }
    return new SamePartition(List.copyOf(timeFields), known);
  }

  /**
   * True when a row of {@code kafkaPartition} with {@code kafka.timestamp} {@code timestampMillis}
   * belongs to the partition of the row passed to the previous call; from then on that row is the
   * previous one.
   */
  public boolean asPrevious(int kafkaPartition, long timestampMillis) {
    if (!known) {
      return false;
    }
    long micros = timestampMillis * 1000;
    boolean same = hasPrevious && kafkaPartition == previousKafkaPartition;
    for (TimeField field : timeFields) {
      same &= field.sameThenRemember(micros);
    }
    hasPrevious = true;
    previousKafkaPartition = kafkaPartition;
    return same;
  }

  /** A transform of the timestamp, and its value for the previous row. */
  private static final class TimeField {
    /**
     * Hours and days of UTC microseconds are their floor divisions (Iceberg's {@code hour} and
     * {@code day}, without the {@code java.time} objects its functions build per call).
     */
    private final long unitMicros;

    private final SerializableFunction<Long, ?> transform;
    private long previousUnit;
    private Object previousValue;

    @SuppressWarnings("unchecked")
    TimeField(Transform<?, ?> transform, Type type) {
      String name = transform.toString();
      this.unitMicros =
          name.equals("hour")
              ? TimeUnit.HOURS.toMicros(1)
              : name.equals("day") ? TimeUnit.DAYS.toMicros(1) : 0;
      this.transform = ((Transform<Long, ?>) transform).bind(type);
    }

    boolean sameThenRemember(long micros) {
      if (unitMicros > 0) {
        long unit = Math.floorDiv(micros, unitMicros);
        boolean same = unit == previousUnit;
        previousUnit = unit;
        return same;
      }
      Object value = transform.apply(micros);
      boolean same = Objects.equals(value, previousValue);
      previousValue = value;
      return same;
    }
  }
}
