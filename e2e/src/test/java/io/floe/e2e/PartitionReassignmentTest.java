package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real partition reassignment: a tiered topic with replication factor 2 on brokers 0 and 1 (the
 * third broker keeps Kafka's remote log metadata topic writable) moves, while producing, to brokers
 * 2 and 1, and broker 2 never had the partitions. Partition 0 goes from {0, 1} to {2, 1}, partition
 * 1 from {1, 0} to {1, 2} (broker 2 only follows it). The leaders have tiered the start of the log
 * and deleted it locally, so broker 2's new replicas cannot copy the log from offset 0: the leader
 * answers OFFSET_MOVED_TO_TIERED_STORAGE and Kafka's follower rebuilds its state from the remote
 * tier through the plugin's {@code fetchIndex} (the leader epoch checkpoint and producer snapshot
 * of the remote segment below the leader's local log start), then replicates from that offset on.
 * The test shows that this happens: broker 2 had no log of the partitions, looked up at least those
 * two indexes per partition and fetched no segment, its logs start locally above offset 0, and its
 * leader epoch caches start at offset 0, which only the tier's checkpoint can have told it.
 *
 * <p>The KRaft controller does not keep broker 0 as the leader of partition 0 once the reassignment
 * removes it: it elects the first in-sync replica of the new assignment, broker 2, as the
 * reassignment completes, so the preferred-leader election that follows finds nothing to do (it is
 * kept, and awaited, for a controller that would not). Broker 2 then tiers new segments of its own
 * after broker 0's, from its local segment holding the first offset broker 0 did not tier. Its log
 * began at a segment boundary of broker 0 (where broker 0's local log began at the bootstrap), but
 * it rolls on its own (jittered) time, so that segment may start right after broker 0's last remote
 * segment, or below it and reach past broker 0's last remote segment (containing it or overlapping
 * it in part): its copy then hides broker 0's rows at those offsets in the table. The idempotent
 * producer goes on unharmed (broker 2's producer state came from the tier). Kafka's copy task on
 * broker 0 may still run when the partition's log is deleted there and fail inside Kafka
 * ("segmentLeaderEpochs can not be null or empty", logged by Kafka's RemoteLogManager) before it
 * calls the plugin; nothing of it reaches the tier.
 *
 * <p>Then the checks of {@code MultiBrokerTieringTest}: everything tiered and nothing left locally,
 * consumers at both isolation levels read back from the tier (through broker 2 for partition 0)
 * exactly what the reference topic holds, the table holds each record once, every remote segment
 * Kafka lists serves exactly its records, no orphans, and no plugin warning but copies Kafka
 * interrupted when a leader moved.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PartitionReassignmentTest {
  private static final String TOPIC = "moved.events";
  private static final int OLD_REPLICA = 0;
  private static final int NEW_REPLICA = 2;

  /** Replicas roll every 0.5 to 3 s, each at its own random point (and at 1 MiB). */
  private static final Map<String, String> JITTERED_ROLLS =
      Map.of("segment.ms", "3000", "segment.jitter.ms", "2500");

  private static final Map<Integer, List<Integer>> BEFORE =
      Map.of(0, List.of(OLD_REPLICA, 1), 1, List.of(1, OLD_REPLICA));
  private static final Map<Integer, List<Integer>> AFTER =
      Map.of(0, List.of(NEW_REPLICA, 1), 1, List.of(1, NEW_REPLICA));

  /** What the leaders have tiered and deleted locally of every partition before the move. */
  private static final long TIERED_BEFORE_THE_MOVE = 100;

  private static final Duration TICK = Duration.ofMillis(50);

  /** How an interrupted copy fails (see {@code MultiBrokerTieringTest}). */
  private static final Pattern INTERRUPTED =
      Pattern.compile("Interrupt|interrupted|AbortedException|CancellationException");

  @TempDir static Path dir;

  private ThreeBrokerCluster cluster;
  private Admin admin;
  private Catalog catalog;
  private TierChecks checks;
  private PluginWarnings warnings;

  @BeforeAll
  void start() throws Exception {
    cluster = ThreeBrokerCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
    admin = cluster.admin();
    catalog = cluster.catalog();
    checks = new TierChecks(cluster, admin);
    warnings = new PluginWarnings();
  }

  @AfterAll
  void stop() throws Exception {
    if (warnings != null) {
      warnings.close();
    }
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aReplicaMovedToABrokerThatNeverHadThePartitionBootstrapsFromTheTierAndTiersOn()
      throws Exception {
    MirroredTopic topic = MirroredTopic.create(admin, TOPIC, BEFORE, JITTERED_ROLLS);
    for (int p = 0; p < topic.partitions; p++) {
      assertThat(localLog(NEW_REPLICA, p)).as("broker 2's log of partition %d", p).isEmpty();
    }
    Map<Integer, Long> end;
    try (SteadyProducer producer = new SteadyProducer(topic, cluster.bootstrapServers(), TICK)) {
      awaitLocalLogStartPast(topic, TIERED_BEFORE_THE_MOVE);
      long indexFetches = cluster.floeMetric(NEW_REPLICA, "IndexFetchCount");
      long fetches = cluster.floeMetric(NEW_REPLICA, "FetchCount");
      reassign(topic);
      long bootstrapIndexFetches =
          cluster.floeMetric(NEW_REPLICA, "IndexFetchCount") - indexFetches;
      System.out.printf(
          "%s moved to %s, leaders %s: broker 2 looked up %d indexes and fetched %d segments; its"
              + " logs %s%n",
          TOPIC,
          AFTER,
          leaders(topic),
          bootstrapIndexFetches,
          cluster.floeMetric(NEW_REPLICA, "FetchCount") - fetches,
          describeNewLogs(topic));
      // Per partition: the leader epoch checkpoint and the producer snapshot of one segment.
      assertThat(bootstrapIndexFetches)
          .as("indexes broker 2 looked up to build its new replicas' state from the tier")
          .isGreaterThanOrEqualTo(2L * topic.partitions);
      for (int p = 0; p < topic.partitions; p++) {
        UnifiedLog log = localLog(NEW_REPLICA, p).orElseThrow();
        assertThat(log.localLogStartOffset())
            .as("where broker 2's log of partition %d starts locally", p)
            .isPositive();
        // Epochs of offsets broker 2's log never held: they came from the tier's checkpoint.
        assertThat(log.leaderEpochCache().earliestEntry().map(EpochEntry::startOffset))
            .as("the first offset of broker 2's leader epoch cache of partition %d", p)
            .contains(0L);
      }

      long copies = cluster.floeMetric(NEW_REPLICA, "CopyCount");
      electPreferred(topic);
      Map<Integer, Long> before = topic.lastAcked();
      checks.awaitTieredThrough(topic, before, "with broker 2 leading partition 0");
      await("broker 2 copies segments of partition 0")
          .atMost(TierChecks.AWAIT)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> cluster.floeMetric(NEW_REPLICA, "CopyCount") > copies);
      end = producer.stop();
    }
    long servedBefore = cluster.floeMetric(NEW_REPLICA, "FetchCount");
    Table table = assertAfterScenario(topic, end);
    assertThat(cluster.floeMetric(NEW_REPLICA, "FetchCount"))
        .as("segments broker 2 fetched from the tier for consumers of partition 0")
        .isGreaterThan(servedBefore);
    List<RemoteLogSegmentMetadata> segments = checks.remoteSegments(TOPIC, 0);
    for (int id : List.of(OLD_REPLICA, NEW_REPLICA)) {
      assertThat(segments.stream().filter(m -> m.brokerId() == id))
          .as("remote segments of partition 0 broker %d copied", id)
          .isNotEmpty();
    }
    assertThat(checks.remoteSegments(TOPIC, 1).stream().filter(m -> m.brokerId() == NEW_REPLICA))
        .as("remote segments of partition 1 (led by broker 1 throughout) broker 2 copied")
        .isEmpty();
    System.out.printf("%s: orphan audit: %s%n", TOPIC, TierChecks.assertNoOrphans(table));
  }

  /**
   * Awaits every partition's leader tiering and deleting locally at least up to {@code offset}: a
   * new replica can no longer copy the log from its start.
   */
  private void awaitLocalLogStartPast(MirroredTopic topic, long offset) {
    await(topic.name + "'s local logs start past offset " + offset)
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () ->
                checks
                    .offsets(topic.name, topic.partitions, OffsetSpec.earliestLocal())
                    .values()
                    .stream()
                    .allMatch(start -> start > offset));
  }

  /**
   * Moves the tiered topic's partitions to {@link #AFTER} and awaits the reassignment done: no
   * reassignment listed, the new replicas in the ISR, broker 0 in neither, and its logs gone.
   */
  private void reassign(MirroredTopic topic) throws Exception {
    Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
    AFTER.forEach(
        (p, replicas) ->
            moves.put(
                new TopicPartition(topic.name, p),
                Optional.of(new NewPartitionReassignment(replicas))));
    admin.alterPartitionReassignments(moves).all().get();
    await("reassignment of " + topic.name + " to " + AFTER)
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(
            () -> {
              if (!admin
                  .listPartitionReassignments(moves.keySet())
                  .reassignments()
                  .get()
                  .isEmpty()) {
                return false;
              }
              for (TopicPartitionInfo p : describe(topic.name).partitions()) {
                List<Integer> replicas = ids(p.replicas());
                List<Integer> isr = ids(p.isr());
                if (!replicas.equals(AFTER.get(p.partition()))
                    || !isr.contains(NEW_REPLICA)
                    || isr.contains(OLD_REPLICA)
                    || localLog(OLD_REPLICA, p.partition()).isPresent()) {
                  return false;
                }
              }
              return true;
            });
  }

  /** Runs a preferred-leader election and awaits every partition led by its first replica. */
  private void electPreferred(MirroredTopic topic) throws Exception {
    Set<TopicPartition> partitions = new HashSet<>();
    for (int p = 0; p < topic.partitions; p++) {
      partitions.add(new TopicPartition(topic.name, p));
    }
    // The controller elected broker 2 already when the reassignment removed the old leader: the
    // election then answers ElectionNotNeeded, and the await below is what counts.
    admin.electLeaders(ElectionType.PREFERRED, partitions).partitions().get();
    await("every partition of " + topic.name + " led by its preferred replica")
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                describe(topic.name).partitions().stream()
                    .allMatch(
                        p -> p.leader() != null && p.leader().id() == p.replicas().get(0).id()));
  }

  /** The checks after the scenario (as in {@code MultiBrokerTieringTest}); returns the table. */
  private Table assertAfterScenario(MirroredTopic topic, Map<Integer, Long> end) throws Exception {
    Map<Integer, Long> tiered = checks.awaitAllTieredAndRemoteOnly(topic, end);
    checks.assertConsumersReadBack(topic);
    Table table = checks.table(catalog, topic.name);
    checks.assertTableHoldsEachRecordOnce(table, topic, tiered);
    int overlaps = checks.assertEveryRemoteSegmentServesExactly(topic);
    List<SegmentSummary.Segment> overlapCommits = TierChecks.overlapSnapshots(table);
    List<String> logged = warnings.drain();
    System.out.printf(
        "%s: tiered %s; remote segments%s; %d pairs overlap in part; copies %s, index fetches %s,"
            + " fetches %s; %d plugin warnings; %d commits hid rows of another replica's copy: %s%n",
        topic.name,
        tiered,
        checks.describeRemoteSegments(topic),
        overlaps,
        perBroker("CopyCount"),
        perBroker("IndexFetchCount"),
        perBroker("FetchCount"),
        logged.size(),
        overlapCommits.size(),
        overlapCommits.stream()
            .map(
                s ->
                    "p"
                        + s.partition()
                        + " "
                        + s.startOffset()
                        + ".."
                        + s.endOffset()
                        + " hid "
                        + s.overlappedRows())
            .toList());
    if (overlaps > 0) {
      assertThat(overlapCommits).as("commits that hid rows of another replica's copy").isNotEmpty();
    }
    assertThat(logged)
        .as("plugin warnings other than copies Kafka interrupted")
        .allMatch(m -> m.contains("Copying segment") && INTERRUPTED.matcher(m).find());
    int moves = cluster.leaderMoves(topic.name, topic.partitions);
    assertThat(moves).as("leader moves of %s", topic.name).isPositive();
    assertThat(logged.size())
        .as("copies interrupted when %d leaders moved: %s", moves, logged)
        .isLessThanOrEqualTo(moves);
    assertThat(cluster.floeMetric("CopyErrors"))
        .as("failed copies counted, each of them logged")
        .isLessThanOrEqualTo(logged.size());
    assertThat(cluster.floeMetric("FetchErrors")).as("failed fetches").isZero();
    assertThat(cluster.floeMetric("DeleteErrors")).as("failed deletes").isZero();
    return table;
  }

  /** Broker {@code id}'s log of a partition of the tiered topic, if it has one. */
  private Optional<UnifiedLog> localLog(int id, int partition) {
    scala.Option<UnifiedLog> log =
        cluster.broker(id).logManager().getLog(new TopicPartition(TOPIC, partition), false);
    return log.isDefined() ? Optional.of(log.get()) : Optional.empty();
  }

  /** Broker 2's logs of the tiered topic: log start, local log start, leader epochs. */
  private Map<Integer, String> describeNewLogs(MirroredTopic topic) {
    Map<Integer, String> out = new TreeMap<>();
    for (int p = 0; p < topic.partitions; p++) {
      UnifiedLog log = localLog(NEW_REPLICA, p).orElseThrow();
      out.put(
          p,
          "start "
              + log.logStartOffset()
              + ", local start "
              + log.localLogStartOffset()
              + ", epochs "
              + log.leaderEpochCache().epochEntries());
    }
    return out;
  }

  private Map<Integer, Integer> leaders(MirroredTopic topic) throws Exception {
    Map<Integer, Integer> out = new TreeMap<>();
    describe(topic.name)
        .partitions()
        .forEach(p -> out.put(p.partition(), p.leader() == null ? -1 : p.leader().id()));
    return out;
  }

  private TopicDescription describe(String topic) throws Exception {
    return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
  }

  private static List<Integer> ids(List<Node> nodes) {
    return nodes.stream().map(Node::id).toList();
  }

  private Map<Integer, Long> perBroker(String metric) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int id : ThreeBrokerCluster.BROKERS) {
      out.put(id, cluster.floeMetric(id, metric));
    }
    return out;
  }
}
