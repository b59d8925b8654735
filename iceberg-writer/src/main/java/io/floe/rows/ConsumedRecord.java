package io.floe.rows;

import io.floe.format.RecordHeader;
import io.floe.format.TimestampType;
import java.util.List;

/**
 * A record as a Kafka consumer returns it: what the head view knows of a record that is not tiered
 * yet. {@code timestamp} is the one the consumer sees (the broker's for {@code LOG_APPEND_TIME});
 * {@code leaderEpoch} is -1 when the broker sent none; key, value and header values may be null.
 * Arrays are not copied: do not mutate them.
 */
public record ConsumedRecord(
    int partition,
    long offset,
    long timestamp,
    TimestampType timestampType,
    int leaderEpoch,
    byte[] key,
    byte[] value,
    List<RecordHeader> headers) {
  public ConsumedRecord {
    headers = headers == null ? List.of() : headers;
  }
}
