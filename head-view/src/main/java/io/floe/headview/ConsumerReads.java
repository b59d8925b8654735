package io.floe.headview;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * The head view's reads of committed records: {@code isolation.level=read_committed} consumers
 * (aborted and open transactions and control records are never returned), pooled (one per
 * concurrent query), each read bounded by the Kafka timeout.
 */
final class ConsumerReads implements AutoCloseable {
  /** Reads of at least this many records poll Kafka on a thread of their own. */
  static final long READ_AHEAD_MIN_RECORDS = 5_000;

  /**
   * The broker's longest wait for records, unless the configuration says otherwise. A read asks
   * only for offsets below the ends it was given, which Kafka already holds, so a long poll never
   * helps; but the fetch a consumer sends ahead at the end of each read waits this long at the log
   * end, and the pooled consumer's next read, of another topic for example, cannot fetch until it
   * returns (with Kafka's default of 500 ms, a cold build of a quiet topic started half a second
   * late).
   */
  static final String FETCH_MAX_WAIT_MS = "10";

  /** How much longer than a read's own bound its caller waits for the next batch. */
  private static final long READ_AHEAD_SLACK_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final Map<String, Object> consumerProps;
  private final Duration timeout;
  private final Deque<KafkaConsumer<ByteBuffer, ByteBuffer>> idle = new ArrayDeque<>();
  private final ExecutorService readers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "floe-head-kafka-reader");
            t.setDaemon(true);
            return t;
          });
  private boolean closed;

  ConsumerReads(Map<String, String> kafkaProps, Duration timeout) {
    this.timeout = timeout;
    Map<String, Object> common = new HashMap<>(kafkaProps);
    common.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "floe-head-view");
    common.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
    common.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    common.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    common.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    common.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    common.remove(ConsumerConfig.GROUP_ID_CONFIG);
    common.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
    common.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class.getName());
    common.keySet().retainAll(ConsumerConfig.configNames());
    this.consumerProps = common;
  }

  /** The properties its consumers are created with. */
  Map<String, Object> consumerProps() {
    return Map.copyOf(consumerProps);
  }

  /**
   * Hands {@code sink} every committed record of partition p with from[p] <= offset < to[p], in
   * offset order per partition. Returns the number of records. A read of at least {@link
   * #READ_AHEAD_MIN_RECORDS} records (a cold build, a partition read again) polls Kafka on a reader
   * thread while {@code sink} runs on the calling thread.
   */
  long read(
      String topic,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      Consumer<ConsumerRecord<ByteBuffer, ByteBuffer>> sink) {
    Map<TopicPartition, Long> ends = new HashMap<>();
    long records = 0;
    for (Map.Entry<Integer, Long> e : from.entrySet()) {
      long end = to.getOrDefault(e.getKey(), e.getValue());
      if (end > e.getValue()) {
        ends.put(new TopicPartition(topic, e.getKey()), end);
        records += end - e.getValue();
      }
    }
    if (ends.isEmpty()) {
      return 0L;
    }
    if (records < READ_AHEAD_MIN_RECORDS) {
      return withConsumer(c -> poll(c, topic, from, ends, batch -> batch.forEach(sink)));
    }
    long maxWaitNanos = timeout.toNanos() + READ_AHEAD_SLACK_NANOS;
    return ReadAhead.run(
        readers,
        (Consumer<List<ConsumerRecord<ByteBuffer, ByteBuffer>>> batches) ->
            withConsumer(c -> poll(c, topic, from, ends, batches)),
        sink,
        maxWaitNanos,
        () ->
            new KafkaHead.KafkaUnavailableException(
                "Reading the head of "
                    + topic
                    + ": its reader gave nothing for "
                    + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                    + " ms",
                null));
  }

  /**
   * Polls the partitions of {@code ends} from {@code from} until each reaches its end, handing each
   * poll's records below their end to {@code batches}.
   */
  private long poll(
      KafkaConsumer<ByteBuffer, ByteBuffer> c,
      String topic,
      Map<Integer, Long> from,
      Map<TopicPartition, Long> ends,
      Consumer<List<ConsumerRecord<ByteBuffer, ByteBuffer>>> batches) {
    c.assign(ends.keySet());
    ends.keySet().forEach(tp -> c.seek(tp, from.get(tp.partition())));
    Set<TopicPartition> remaining = new HashSet<>(ends.keySet());
    long deadline = System.nanoTime() + timeout.toNanos();
    long count = 0;
    try {
      while (!remaining.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new KafkaHead.KafkaUnavailableException(
              "Reading the head of "
                  + topic
                  + " took longer than "
                  + timeout.toMillis()
                  + " ms; still missing "
                  + remaining,
              null);
        }
        List<ConsumerRecord<ByteBuffer, ByteBuffer>> batch = new ArrayList<>();
        for (ConsumerRecord<ByteBuffer, ByteBuffer> r :
            c.poll(Duration.ofNanos(Math.min(left, 200_000_000L)))) {
          Long end = ends.get(new TopicPartition(r.topic(), r.partition()));
          if (end != null && r.offset() < end) {
            batch.add(r);
          }
        }
        if (!batch.isEmpty()) {
          batches.accept(batch);
          count += batch.size();
        }
        for (var it = remaining.iterator(); it.hasNext(); ) {
          TopicPartition tp = it.next();
          if (c.position(tp, timeout) >= ends.get(tp)) {
            c.pause(List.of(tp));
            it.remove();
          }
        }
      }
    } finally {
      c.assign(List.of());
    }
    return count;
  }

  private <T> T withConsumer(
      java.util.function.Function<KafkaConsumer<ByteBuffer, ByteBuffer>, T> work) {
    KafkaConsumer<ByteBuffer, ByteBuffer> c;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("closed");
      }
      c = idle.pollFirst();
    }
    if (c == null) {
      c = new KafkaConsumer<>(consumerProps);
    }
    boolean healthy = false;
    try {
      T result = work.apply(c);
      healthy = true;
      return result;
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new KafkaHead.KafkaUnavailableException(
          "Kafka did not answer within " + timeout.toMillis() + " ms: " + e.getMessage(), e);
    } finally {
      boolean closeIt = !healthy;
      synchronized (this) {
        if (!closeIt && !closed) {
          idle.addFirst(c);
        } else {
          closeIt = true;
        }
      }
      if (closeIt) {
        c.close(Duration.ofSeconds(1));
      }
    }
  }

  @Override
  public void close() {
    List<KafkaConsumer<ByteBuffer, ByteBuffer>> toClose;
    synchronized (this) {
      closed = true;
      toClose = new ArrayList<>(idle);
      idle.clear();
    }
    readers.shutdownNow();
    toClose.forEach(c -> c.close(Duration.ofSeconds(1)));
  }
}
