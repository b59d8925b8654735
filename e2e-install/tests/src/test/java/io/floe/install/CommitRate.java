package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Commits per second into one table from three brokers: a topic of twelve partitions, four led by
 * each broker, whose segments roll every 100 ms while a producer writes to every partition, so
 * Kafka offers far more segments than can be tiered and each broker copies (and commits) as fast as
 * it can. Counts the segment snapshots committed to the topic's table in a measured window, after a
 * warm-up; concurrent copies on one broker share catalog commits, each segment keeps its own
 * snapshot.
 */
final class CommitRate {
  static final String TOPIC = "rate.events";
  static final int PARTITIONS = 12;

  /** A measured window. */
  record Result(long snapshots, double seconds, long failedCopies) {
    double perSecond() {
      return snapshots / seconds;
    }
  }

  private CommitRate() {}

  static Result measure(KillNineScenario s, Duration window) throws Exception {
    List<TopicPartition> partitions = createTopic(s);
    KillChecks checks = new KillChecks(s.cluster.bootstrapServers(), s.admin, partitions);
    Catalog catalog = s.services.client(s.catalog);
    try (PacedProducer producer =
        new PacedProducer(
            s.cluster.bootstrapServers(), partitions, new AckLedger(), Duration.ofMillis(50))) {
      await("every partition of " + TOPIC + " tiering")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(
              () ->
                  checks.offsets(OffsetSpec.latestTiered()).values().stream()
                      .allMatch(offset -> offset >= 0));
      long failedBefore = CopyLog.count(s.cluster.logs()).failed();
      long from = System.currentTimeMillis();
      Thread.sleep(window.toMillis()); // the measured window itself
      long to = System.currentTimeMillis();
      long failed = CopyLog.count(s.cluster.logs()).failed() - failedBefore;
      producer.stop();
      Table table = checks.table(catalog, TOPIC);
      table.refresh();
      long snapshots = 0;
      for (Snapshot snapshot : table.snapshots()) {
        if (snapshot.summary().containsKey(SegmentSummary.START_OFFSET)
            && snapshot.timestampMillis() >= from
            && snapshot.timestampMillis() < to) {
          snapshots++;
        }
      }
      return new Result(snapshots, (to - from) / 1000.0, failed);
    } finally {
      ((Closeable) catalog).close();
    }
  }

  private static List<TopicPartition> createTopic(KillNineScenario s) throws Exception {
    Map<Integer, List<Integer>> assignment = new HashMap<>();
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int first = p % 3;
      assignment.put(p, List.of(first + 1, (first + 1) % 3 + 1, (first + 2) % 3 + 1));
      partitions.add(new TopicPartition(TOPIC, p));
    }
    Map<String, String> config = new HashMap<>(KillNineScenario.TOPIC_CONFIG);
    config.put("segment.ms", "100");
    config.remove("segment.jitter.ms");
    s.admin
        .createTopics(List.of(new NewTopic(TOPIC, assignment).configs(config)))
        .all()
        .get(60, TimeUnit.SECONDS);
    return partitions;
  }
}
