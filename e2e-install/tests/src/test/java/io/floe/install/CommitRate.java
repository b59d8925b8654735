package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * Commits per second into one table from three brokers: a topic of twelve partitions, four led by
 * each broker, whose segments roll every 100 ms while a producer writes to every partition, so
 * Kafka offers far more segments than can be tiered and each broker copies (and commits) as fast as
 * it can. Counts the segments committed to the topic's table in a measured window once the table
 * has its first one, in all and per broker (by the partitions each one leads), and the snapshots
 * that committed them (concurrent copies on one broker share a snapshot).
 */
final class CommitRate {
  static final String TOPIC = "rate.events";
  static final int PARTITIONS = 12;

  /**
   * A measured window: segments committed in all and per leading node, the snapshots that committed
   * them, failed copies.
   */
  record Result(
      long segments,
      long snapshots,
      Map<Integer, Long> perNode,
      double seconds,
      long failedCopies,
      CopyLog.CopyTimes times) {
    /** Segment commits (copies committed) per second. */
    double perSecond() {
      return segments / seconds;
    }

    double snapshotsPerSecond() {
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
      await("the first copy into the table of " + TOPIC)
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptions()
          .until(() -> checks.table(catalog, TOPIC).currentSnapshot() != null);
      long failedBefore = CopyLog.count(s.cluster.logs()).failed();
      long from = System.currentTimeMillis();
      Thread.sleep(window.toMillis()); // the measured window itself
      long to = System.currentTimeMillis();
      long failed = CopyLog.count(s.cluster.logs()).failed() - failedBefore;
      producer.stop();
      Table table = checks.table(catalog, TOPIC);
      table.refresh();
      Map<Integer, Long> perNode = new TreeMap<>();
      ChildKafkaCluster.NODES.forEach(id -> perNode.put(id, 0L));
      long snapshots = 0;
      for (Snapshot snapshot : table.snapshots()) {
        List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(snapshot.summary());
        if (!segments.isEmpty()
            && snapshot.timestampMillis() >= from
            && snapshot.timestampMillis() < to) {
          snapshots++;
          segments.forEach(g -> perNode.merge(leader(g.partition()), 1L, Long::sum));
        }
      }
      long segments = perNode.values().stream().mapToLong(Long::longValue).sum();
      return new Result(
          segments,
          snapshots,
          perNode,
          (to - from) / 1000.0,
          failed,
          CopyLog.copyTimes(s.cluster.logs(), TOPIC, from, to));
    } finally {
      ((Closeable) catalog).close();
    }
  }

  /** Partition {@code p}'s preferred leader (no node dies while the rate is measured). */
  private static int leader(int partition) {
    return partition % 3 + 1;
  }

  private static List<TopicPartition> createTopic(KillNineScenario s) throws Exception {
    Map<Integer, List<Integer>> assignment = new HashMap<>();
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int first = leader(p);
      assignment.put(p, List.of(first, first % 3 + 1, (first + 1) % 3 + 1));
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
