package io.floe.layout;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Kafka millisecond timestamps as the table's {@code timestamptz} values (microseconds, UTC) and
 * back.
 */
public final class KafkaTimestamps {
  private static final long MAX_MILLIS = Long.MAX_VALUE / 1000;
  private static final long MIN_MILLIS = Long.MIN_VALUE / 1000;

  private KafkaTimestamps() {}

  /**
   * The timestamp of the record at {@code offset}; refused when a microsecond timestamp cannot hold
   * it.
   */
  public static OffsetDateTime toTimestamp(long millis, long offset) {
    if (millis > MAX_MILLIS || millis < MIN_MILLIS) {
      throw new IllegalArgumentException(
          "Record at offset "
              + offset
              + " has timestamp "
              + millis
              + " ms, outside what a microsecond"
              + " timestamp can hold");
    }
    // Instant.atOffset would build a ZoneRules per call (ZoneOffset.getRules): a copy makes one
    // of these per row.
    LocalDateTime utc =
        LocalDateTime.ofEpochSecond(
            Math.floorDiv(millis, 1000L), Math.floorMod(millis, 1000) * 1_000_000, ZoneOffset.UTC);
    return OffsetDateTime.of(utc, ZoneOffset.UTC);
  }

  public static long toMillis(OffsetDateTime ts) {
    Instant i = ts.toInstant();
    return Math.floorDiv(i.getEpochSecond() * 1_000_000L + i.getNano() / 1000, 1000L);
  }
}
