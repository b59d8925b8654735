package io.floe.install;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.apache.kafka.common.TopicPartition;

/**
 * What a producer sent to each partition and what it got acks for. Record number {@code n} of
 * partition {@code p} of topic {@code t} has the key {@code t-p-n} and a value made from its key,
 * so a record read back (from a consumer or a table row) is identified and checked by its key and
 * value alone: {@link #seen} packs the record number and the value's digest into one long.
 */
final class AckLedger {
  static final int VALUE_BYTES = 2048;

  private final Map<TopicPartition, NavigableMap<Long, Integer>> acked = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Set<Integer>> failed = new ConcurrentHashMap<>();
  private final Map<TopicPartition, AtomicInteger> sent = new ConcurrentHashMap<>();

  /** The number of the next record to send to {@code tp}. */
  int next(TopicPartition tp) {
    return sent.computeIfAbsent(tp, k -> new AtomicInteger()).getAndIncrement();
  }

  void acked(TopicPartition tp, int n, long offset) {
    acked.computeIfAbsent(tp, k -> new ConcurrentSkipListMap<>()).put(offset, n);
  }

  void failed(TopicPartition tp, int n) {
    failed.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(n);
  }

  /** Acked offset to record number. */
  NavigableMap<Long, Integer> acked(TopicPartition tp) {
    return acked.getOrDefault(tp, new ConcurrentSkipListMap<>());
  }

  /** Numbers of the records whose send failed: they may have been written, once at most. */
  Set<Integer> failed(TopicPartition tp) {
    return failed.getOrDefault(tp, Set.of());
  }

  long ackedCount() {
    return acked.values().stream().mapToLong(Map::size).sum();
  }

  long failedCount() {
    return failed.values().stream().mapToLong(Set::size).sum();
  }

  /** The highest acked offset of {@code tp}, or -1. */
  long lastAcked(TopicPartition tp) {
    NavigableMap<Long, Integer> m = acked(tp);
    return m.isEmpty() ? -1 : m.lastKey();
  }

  static String key(TopicPartition tp, int n) {
    return tp.topic() + "-" + tp.partition() + "-" + n;
  }

  static byte[] value(TopicPartition tp, int n) {
    byte[] value = new byte[VALUE_BYTES];
    new Random(key(tp, n).hashCode() * 31L + n).nextBytes(value);
    return value;
  }

  static int digest(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return (int) crc.getValue();
  }

  /**
   * What a reader saw: the record number in {@code key} (-1 if it is not a key of {@code tp}) and
   * the value's digest, packed.
   */
  static long seen(TopicPartition tp, ByteBuffer key, ByteBuffer value) {
    String k = key == null ? "" : StandardCharsets.UTF_8.decode(key.duplicate()).toString();
    String prefix = tp.topic() + "-" + tp.partition() + "-";
    int n = -1;
    if (k.startsWith(prefix)) {
      try {
        n = Integer.parseInt(k.substring(prefix.length()));
      } catch (NumberFormatException notOurs) {
        n = -1;
      }
    }
    int digest = value == null ? 0 : digest(value);
    return ((long) n << 32) | (digest & 0xffffffffL);
  }

  static int number(long seen) {
    return (int) (seen >> 32);
  }

  static int valueDigest(long seen) {
    return (int) seen;
  }
}
