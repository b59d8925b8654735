package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Produces to a {@link MirroredTopic} at a steady pace while a test moves leaders or stops brokers:
 * every tick, one record to every partition of both topics, with an idempotent producer (acks from
 * all in-sync replicas, retried across leader changes within the delivery timeout). Each record's
 * acks are collected as they arrive; a send that fails fails the test at {@link #stop}.
 */
final class SteadyProducer implements AutoCloseable {
  private final MirroredTopic topic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
  private final Deque<MirroredTopic.Pending> pending = new ArrayDeque<>();
  private final List<Throwable> failures = new ArrayList<>();
  private boolean stopped;

  SteadyProducer(MirroredTopic topic, String bootstrap, Duration tick) {
    this.topic = topic;
    this.producer = MirroredTopic.producer(bootstrap, Map.of());
    ticks.scheduleAtFixedRate(this::tick, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
  }

  private synchronized void tick() {
    if (stopped) {
      return;
    }
    try {
      for (int p = 0; p < topic.partitions; p++) {
        pending.add(topic.send(producer, p));
      }
      collectDone();
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  /** Remembers the acked records at the head of the queue (acks of one partition come in order). */
  private void collectDone() throws Exception {
    while (!pending.isEmpty() && pending.peekFirst().isDone()) {
      pending.pollFirst().acked(false);
    }
  }

  /** Stops sending, waits for the acks of every record sent and returns the last acked offsets. */
  Map<Integer, Long> stop() throws Exception {
    synchronized (this) {
      stopped = true;
    }
    ticks.shutdown();
    assertThat(ticks.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
    producer.flush();
    synchronized (this) {
      while (!pending.isEmpty()) {
        try {
          pending.pollFirst().acked(false);
        } catch (Exception e) {
          failures.add(e);
        }
      }
      assertThat(failures).as("sends to %s that failed", topic.name).isEmpty();
    }
    return topic.lastAcked();
  }

  @Override
  public void close() {
    ticks.shutdownNow();
    producer.close(Duration.ofSeconds(10));
  }
}
