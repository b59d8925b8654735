package io.floe.rows;

import io.floe.format.RecordHeader;
import io.floe.format.TimestampType;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A record as a Kafka consumer returns it: what the head view knows of a record that is not tiered
 * yet. {@code timestamp} is the one the consumer sees (the broker's for {@code LOG_APPEND_TIME});
 * {@code leaderEpoch} is -1 when the broker sent none; key, value and header values may be null.
 * Key and value are the consumer's views of its fetched bytes (their positions and limits mark the
 * payload), not copied: do not mutate them.
 */
public record ConsumedRecord(
    int partition,
    long offset,
    long timestamp,
    TimestampType timestampType,
    int leaderEpoch,
    ByteBuffer key,
    ByteBuffer value,
    List<RecordHeader> headers) {
  public ConsumedRecord {
    headers = headers == null ? List.of() : headers;
  }

  /** A record whose key and value are these arrays (null stays null). */
  public static ConsumedRecord of(
      int partition,
      long offset,
      long timestamp,
      TimestampType timestampType,
      int leaderEpoch,
      byte[] key,
      byte[] value,
      List<RecordHeader> headers) {
    return new ConsumedRecord(
        partition,
        offset,
        timestamp,
        timestampType,
        leaderEpoch,
        key == null ? null : ByteBuffer.wrap(key),
        value == null ? null : ByteBuffer.wrap(value),
        headers);
  }
}
