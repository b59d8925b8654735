package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;

/**
 * Commits per second into one table from three brokers: a topic of {@value #PARTITIONS} partitions,
 * a third led by each broker, whose segments roll every second while a producer writes a record to
 * every partition every {@value #TICK_MS} ms, so Kafka offers {@value #PARTITIONS} segments a
 * second and each broker has as many copies in flight as Kafka's copier threads allow (ten by
 * default). Counts the segments committed to the topic's table in a measured window that starts
 * once every partition has a segment in the table (each broker has loaded the table and copies), in
 * all and per broker (by the partitions each one leads), and the snapshots that committed them
 * (concurrent copies on one broker share a snapshot).
 *
 * <p>Segments roll once a second rather than as fast as Kafka can roll them: on two cores, rolling
 * ten times as many segments as can be tiered spent most of the machine in the brokers' own segment
 * rolls (index files created, mapped and flushed), and measured that rather than the commits.
 */
final class CommitRate {
  static final String TOPIC = "rate.events";
  static final int PARTITIONS = 36;
  static final long SEGMENT_MS = 1000;
  static final long TICK_MS = 200;

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
            s.cluster.bootstrapServers(),
            partitions,
            new AckLedger(),
            Duration.ofMillis(TICK_MS))) {
      await("a copy of every partition of " + TOPIC + " in its table")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .until(() -> tieredPartitions(checks.table(catalog, TOPIC)) == PARTITIONS);
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

  /** How many partitions have a segment in {@code table}. */
  private static long tieredPartitions(Table table) {
    Set<Integer> partitions = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      SegmentSummary.segmentsOf(snapshot.summary()).forEach(g -> partitions.add(g.partition()));
    }
    return partitions.size();
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
    config.put("segment.ms", Long.toString(SEGMENT_MS));
    config.remove("segment.jitter.ms");
    s.admin
        .createTopics(List.of(new NewTopic(TOPIC, assignment).configs(config)))
        .all()
        .get(60, TimeUnit.SECONDS);
    return partitions;
  }
}
