package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Everything a consumer reads from partition 0 of a topic, field by field (byte arrays by content),
 * for comparing a tiered topic with its reference twin.
 */
final class ReadBack {
  record Rec(
      long offset,
      long timestamp,
      TimestampType type,
      ByteBuffer key,
      ByteBuffer value,
      List<Hdr> headers) {}

  record Hdr(String key, ByteBuffer value) {}

  private ReadBack() {}

  /** Every record of partition 0 up to its end offset at {@code isolation} (its LSO or HW). */
  static List<Rec> readAll(String bootstrap, String topic, IsolationLevel isolation) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    TopicPartition tp = new TopicPartition(topic, 0);
    List<Rec> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (consumer.position(tp) < end) {
        assertThat(System.nanoTime())
            .as("reading %s (%s) within 60 s", topic, isolation)
            .isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          out.add(rec(r));
        }
      }
    }
    return out;
  }

  static ByteBuffer buf(byte[] b) {
    return b == null ? null : ByteBuffer.wrap(b);
  }

  private static Rec rec(ConsumerRecord<byte[], byte[]> r) {
    List<Hdr> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new Hdr(h.key(), buf(h.value())));
    }
    return new Rec(
        r.offset(), r.timestamp(), r.timestampType(), buf(r.key()), buf(r.value()), headers);
  }

  /** The two lists hold the same records; the first difference is reported with both sides. */
  static void assertSame(String what, List<Rec> actual, List<Rec> expected) {
    for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
      if (!actual.get(i).equals(expected.get(i))) {
        throw new AssertionError(
            what
                + ": record "
                + i
                + " differs:\n  expected "
                + describe(expected.get(i))
                + "\n  actual   "
                + describe(actual.get(i)));
      }
    }
    assertThat(actual).as(what + ": record count").hasSameSizeAs(expected);
  }

  private static String describe(Rec r) {
    return "@"
        + r.offset()
        + " ts="
        + r.timestamp()
        + " "
        + r.type()
        + " key="
        + length(r.key())
        + " value="
        + length(r.value())
        + " headers="
        + r.headers().size();
  }

  private static String length(ByteBuffer b) {
    return b == null ? "null" : b.remaining() + " bytes";
  }
}
