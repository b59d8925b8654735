package io.floe.install;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes continuously while brokers die: every tick one record to every partition, through an
 * idempotent producer with acks from all in-sync replicas (retried across leader changes within the
 * delivery timeout). Each ack, and each send that fails, goes into the {@link AckLedger}.
 */
final class PacedProducer implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final List<TopicPartition> partitions;
  private final AckLedger ledger;
  private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
  private final AtomicLong sendErrors = new AtomicLong();
  private volatile boolean stopped;

  PacedProducer(
      String bootstrap, List<TopicPartition> partitions, AckLedger ledger, Duration tick) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    this.producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    this.partitions = partitions;
    this.ledger = ledger;
    ticks.scheduleAtFixedRate(this::tick, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    if (stopped) {
      return;
    }
    for (TopicPartition tp : partitions) {
      int n = ledger.next(tp);
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(
              tp.topic(),
              tp.partition(),
              AckLedger.key(tp, n).getBytes(StandardCharsets.UTF_8),
              AckLedger.value(tp, n));
      try {
        producer.send(
            record,
            (metadata, error) -> {
              if (error == null) {
                ledger.acked(tp, n, metadata.offset());
              } else {
                sendErrors.incrementAndGet();
                ledger.failed(tp, n);
              }
            });
      } catch (RuntimeException e) {
        sendErrors.incrementAndGet();
        ledger.failed(tp, n);
      }
    }
  }

  /** Sends that failed so far (their records may or may not have been written). */
  long sendErrors() {
    return sendErrors.get();
  }

  /** Stops sending and waits for the outcome of every record sent. */
  void stop() throws InterruptedException {
    stopped = true;
    ticks.shutdown();
    if (!ticks.awaitTermination(1, TimeUnit.MINUTES)) {
      throw new IllegalStateException("producer tick still running after 1 min");
    }
    producer.flush();
  }

  @Override
  public void close() {
    stopped = true;
    ticks.shutdownNow();
    producer.close(Duration.ofSeconds(10));
  }
}
