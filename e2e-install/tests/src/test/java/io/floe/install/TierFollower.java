package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.install.ReadBack.Seen;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer that keeps catching up from the tier while the producer writes and brokers die: pass
 * after pass ({@link #PAUSE} apart, so that reading a growing history does not starve the brokers
 * of CPU) it reads every partition from offset 0 to the log end it finds when the pass starts (all
 * but the newest segments come from the tier), alternating isolation levels, and checks each pass
 * against the acks once the producer has its acks for everything the pass read.
 */
final class TierFollower implements AutoCloseable {
  static final Duration PAUSE = Duration.ofSeconds(15);

  private final KillChecks checks;
  private final AckLedger ledger;
  private final List<TopicPartition> partitions;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;
  private final ReadBack total = new ReadBack();
  private volatile Throwable failure;
  private int passes;

  TierFollower(KillChecks checks, AckLedger ledger, List<TopicPartition> partitions) {
    this.checks = checks;
    this.ledger = ledger;
    this.partitions = partitions;
    this.thread = new Thread(this::follow, "tier-follower");
    thread.setDaemon(true);
    thread.start();
  }

  private void follow() {
    try {
      while (!stopped.await(passes == 0 ? 0 : PAUSE.toMillis(), TimeUnit.MILLISECONDS)) {
        Map<TopicPartition, Long> end = checks.offsets(OffsetSpec.latest());
        IsolationLevel isolation = IsolationLevel.values()[passes % 2];
        Map<TopicPartition, List<Seen>> seen = checks.read(isolation, end, Duration.ofMinutes(5));
        await("acks for everything pass " + passes + " read")
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> partitions.stream().allMatch(tp -> ledger.lastAcked(tp) >= end.get(tp) - 1));
        ReadBack pass = new ReadBack();
        for (TopicPartition tp : partitions) {
          pass.add(ReadBack.check(ledger, tp, seen.get(tp), end.get(tp), false));
        }
        synchronized (this) {
          total.add(pass);
          passes++;
        }
        System.out.println("tier follower pass " + passes + " (" + isolation + "): " + pass);
      }
    } catch (Throwable t) {
      if (stopped.getCount() > 0) {
        failure = t;
      }
    }
  }

  /** Stops after the current pass; returns what every completed pass saw. */
  ReadBack stop() throws InterruptedException {
    close();
    if (thread.isAlive()) {
      throw new AssertionError("the tier follower did not finish its pass within 6 minutes");
    }
    if (failure != null) {
      throw new AssertionError("the tier follower failed", failure);
    }
    synchronized (this) {
      ReadBack copy = new ReadBack();
      copy.add(total);
      return copy;
    }
  }

  synchronized int passes() {
    return passes;
  }

  @Override
  public void close() throws InterruptedException {
    stopped.countDown();
    thread.join(Duration.ofMinutes(6).toMillis());
  }
}
