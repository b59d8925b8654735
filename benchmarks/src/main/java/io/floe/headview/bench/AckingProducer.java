package io.floe.headview.bench;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces JSON-like records of a fixed size round-robin over a topic's partitions (acks=all) and
 * remembers, per partition, the highest acknowledged offset. The bench is the topic's only producer
 * and nothing is transactional, so every offset up to that one exists in the log.
 */
final class AckingProducer implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final int partitions;
  private final int recordBytes;
  private final AtomicLongArray acked;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final Random rnd = new Random(7);
  private long sent;

  AckingProducer(String bootstrap, String topic, int partitions, int recordBytes) {
    this.producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "acks",
                "all",
                "linger.ms",
                "5",
                "batch.size",
                "262144",
                "compression.type",
                "none"),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    this.topic = topic;
    this.partitions = partitions;
    this.recordBytes = recordBytes;
    this.acked = new AtomicLongArray(partitions);
    for (int p = 0; p < partitions; p++) {
      acked.set(p, -1);
    }
  }

  /** Sends n records and returns once all of them are acknowledged. */
  void produce(int n) throws Exception {
    for (int i = 0; i < n; i++) {
      int p = (int) (sent++ % partitions);
      producer.send(
          new ProducerRecord<>(
              topic,
              p,
              ("user-" + rnd.nextInt(10_000)).getBytes(StandardCharsets.UTF_8),
              value(sent)),
          (md, e) -> {
            if (e != null) {
              failure.compareAndSet(null, e);
            } else {
              acked.accumulateAndGet(md.partition(), md.offset(), Math::max);
            }
          });
    }
    producer.flush();
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  /** Per partition, the highest offset acknowledged so far (-1: none). */
  long[] acked() {
    long[] out = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      out[p] = acked.get(p);
    }
    return out;
  }

  private byte[] value(long id) {
    StringBuilder sb = new StringBuilder(recordBytes + 64);
    sb.append("{\"id\":")
        .append(id)
        .append(",\"type\":\"")
        .append(rnd.nextBoolean() ? "order" : "refund")
        .append("\",\"amount\":")
        .append(rnd.nextInt(100_000) / 100.0)
        .append(",\"items\":[");
    while (sb.length() < recordBytes) {
      sb.append("{\"sku\":\"SKU-")
          .append(rnd.nextInt(5000))
          .append("\",\"qty\":")
          .append(1 + rnd.nextInt(5))
          .append("},");
    }
    return sb.substring(0, recordBytes).getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
  }
}
