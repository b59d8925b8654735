package io.floe.format;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One record with absolute offset (baseOffset + offsetDelta) and absolute timestamp as stored
 * (baseTimestamp + timestampDelta). key/value may be null; empty arrays stay empty.
 *
 * <p>Note: for LOG_APPEND_TIME batches Kafka consumers report the batch's maxTimestamp for every
 * record; {@link #timestamp()} is still the stored value (needed to re-encode the batch exactly).
 *
 * <p>Equality compares key/value bytes by content. Arrays are not copied: do not mutate them.
 */
public record KafkaRecord(
    long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
  public KafkaRecord {
    headers = headers == null ? List.of() : headers;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KafkaRecord r
        && offset == r.offset
        && timestamp == r.timestamp
        && Arrays.equals(key, r.key)
        && Arrays.equals(value, r.value)
        && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(offset, timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
  }

  @Override
  public String toString() {
    return "KafkaRecord[offset="
        + offset
        + ", timestamp="
        + timestamp
        + ", key="
        + (key == null ? "null" : key.length + " bytes")
        + ", value="
        + (value == null ? "null" : value.length + " bytes")
        + ", headers="
        + headers
        + "]";
  }
}
