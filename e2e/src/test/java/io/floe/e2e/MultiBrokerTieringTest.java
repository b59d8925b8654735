package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import io.floe.rlmm.FloeRemoteLogMetadataManager;
import io.floe.testing.SharedCatalogs;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers tier into one shared catalog, each leading some partitions of the same topics, and
 * leaders change as they do in production: a preferred-leader election, a broker shut down and
 * restarted, a broker stopped without a controlled shutdown. Replicas roll their own segments
 * ({@code segment.ms} with {@code segment.jitter.ms}), so after each leader change the new leader
 * copies segments that overlap what the old leader tiered only in part. After each scenario: Kafka
 * tiers past what was produced before the fault (tiering never stalls); consumers at both isolation
 * levels read back from offset 0, once the local copies are gone, exactly what the reference topic
 * holds and the producer got acks for; the Iceberg table holds each committed record exactly once
 * per partition; every remote segment Kafka lists (old and new boundaries) serves exactly its
 * records; the plugin logs no warning and counts no failed copy but for the copies Kafka interrupts
 * when their leader loses its leadership (at most one per leader move); and retention, applied to
 * every remote segment of every leader, empties the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiBrokerTieringTest {
  /** Replicas roll every 0.5 to 3 s, each at its own random point (and at 1 MiB). */
  private static final Map<String, String> JITTERED_ROLLS =
      Map.of("segment.ms", "3000", "segment.jitter.ms", "2500");

  private static final Duration TICK = Duration.ofMillis(50);

  /**
   * How an interrupted copy fails, by where the interrupt caught it: a sleep or wait, a file
   * channel, the AWS SDK (AbortedException), the REST catalog's HTTP client
   * (CancellationException).
   */
  private static final Pattern INTERRUPTED =
      Pattern.compile("Interrupt|interrupted|AbortedException|CancellationException");

  @TempDir static Path dir;

  /** Copies the brokers cancelled (Kafka interrupted them) before this scenario. */
  private long cancellationsSeen;

  private ThreeBrokerCluster cluster;
  private Admin admin;
  private Catalog catalog;
  private TierChecks checks;
  private PluginWarnings warnings;
  private SharedCatalogs shared;

  @BeforeAll
  void start() throws Exception {
    cluster = ThreeBrokerCluster.start(catalogProperties(), Map.of());
    admin = cluster.admin();
    catalog = cluster.catalog();
    checks = new TierChecks(cluster, admin);
    warnings = new PluginWarnings();
    for (int id : ThreeBrokerCluster.BROKERS) {
      assertThat(cluster.remoteLogManager(id).remoteLogMetadataManager())
          .as("broker %d's remote log metadata manager", id)
          .isInstanceOf(FloeRemoteLogMetadataManager.class);
    }
  }

  /**
   * The catalog the three brokers share: {@code -Dfloe.e2e.catalog=sqlite} (the default: one SQLite
   * file, which in-process brokers can share), {@code postgres} (JdbcCatalog on an embedded
   * PostgreSQL server) or {@code rest} (Iceberg's REST catalog server).
   */
  private Map<String, String> catalogProperties() {
    String kind = System.getProperty("floe.e2e.catalog", "sqlite");
    if (kind.equals("sqlite")) {
      return FloeCluster.s3CatalogProperties(dir);
    }
    shared = SharedCatalogs.start();
    return shared.properties(SharedCatalogs.Kind.valueOf(kind.toUpperCase(Locale.ROOT)));
  }

  @BeforeEach
  void forgetEarlierWarnings() {
    warnings.drain();
  }

  @AfterAll
  void stop() throws Exception {
    if (warnings != null) {
      warnings.close();
    }
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (shared != null) {
      shared.close();
    }
  }

  /**
   * Two topics of three partitions, each partition led by another broker: the three brokers copy
   * into both tables at once (transactions, some aborted, so the isolation levels differ).
   */
  @Test
  @Order(1)
  void everyBrokerCopiesIntoTheSameTablesAtOnce() throws Exception {
    Map<Integer, Long> copiesBefore = perBroker("CopyCount");
    Map<Integer, Long> errorsBefore = perBroker("CopyErrors");
    List<MirroredTopic> topics =
        List.of(
            MirroredTopic.create(admin, "fleet.orders", 3, 0, Map.of()),
            MirroredTopic.create(admin, "fleet.payments", 3, 1, Map.of()));
    try (KafkaProducer<byte[], byte[]> producer =
        MirroredTopic.producer(
            cluster.bootstrapServers(),
            Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "fleet-writer"))) {
      producer.initTransactions();
      for (int round = 0; round < 6; round++) {
        boolean abort = round % 3 == 1;
        producer.beginTransaction();
        for (MirroredTopic topic : topics) {
          topic.produceInTransaction(producer, 40, abort);
        }
        if (abort) {
          producer.abortTransaction();
        } else {
          producer.commitTransaction();
        }
      }
    }
    for (MirroredTopic topic : topics) {
      assertAfterScenario(topic, topic.lastAcked(), errorsBefore, 0);
    }
    Map<Integer, Long> copies = perBroker("CopyCount");
    for (int id : ThreeBrokerCluster.BROKERS) {
      assertThat(copies.get(id) - copiesBefore.get(id)).as("copies by broker %d", id).isPositive();
    }
  }

  /**
   * The scenario that stalled tiering before (114 refused copies in 90 s): a clean preferred-leader
   * election to a replica whose segment holding the first untiered offset starts below it, and
   * back.
   */
  @Test
  @Order(2)
  void preferredLeaderElectionsWithJitteredSegmentsKeepTiering() throws Exception {
    Map<Integer, Long> errorsBefore = perBroker("CopyErrors");
    MirroredTopic topic = MirroredTopic.create(admin, "jitter.events", 3, 0, JITTERED_ROLLS);
    Map<Integer, Long> end;
    try (SteadyProducer producer = startProducing(topic)) {
      for (int shift : List.of(1, 0)) {
        Map<Integer, Long> before = topic.lastAcked();
        movePreferredLeaders(topic, shift);
        checks.awaitTieredThrough(topic, before, "after the election to shift " + shift);
      }
      end = producer.stop();
    }
    Outcome outcome = assertAfterScenario(topic, end, errorsBefore, 2 * topic.partitions);
    assertThat(outcome.partialOverlaps())
        .as("remote segments of %s from both leaders that overlap in part", topic.name)
        .isPositive();
    assertRetentionEmptiesTheTable(topic, outcome);
  }

  /**
   * A broker shut down (controlled: its leaders move first) while producing, and started again: the
   * new leaders tier on from where the old ones stopped, and after the restart and a
   * preferred-leader election the restarted broker does too.
   */
  @Test
  @Order(3)
  void aBrokerShutDownAndRestartedKeepsTiering() throws Exception {
    Map<Integer, Long> errorsBefore = perBroker("CopyErrors");
    MirroredTopic topic = MirroredTopic.create(admin, "restart.events", 3, 0, JITTERED_ROLLS);
    Map<Integer, Long> end;
    try (SteadyProducer producer = startProducing(topic)) {
      Map<Integer, Long> before = topic.lastAcked();
      cluster.stopGracefully(1);
      checks.awaitTieredThrough(topic, before, "with broker 1 shut down");
      restartAndLeadAgain(topic, 1);
      end = producer.stop();
    }
    // Partition 1 moves to broker 2 and back.
    assertRetentionEmptiesTheTable(topic, assertAfterScenario(topic, end, errorsBefore, 2));
  }

  /**
   * Broker {@link ThreeBrokerCluster#ABRUPT} stopped without a controlled shutdown while it copies
   * a segment (Kafka lists the copy as started, not finished): the controller fences it when its
   * heartbeats stop, a follower takes over and tiers on; started again as after a crash (log
   * recovery), it leads again and tiers on.
   */
  @Test
  @Order(4)
  void aBrokerStoppedAbruptlyMidCopyKeepsTiering() throws Exception {
    int victim = ThreeBrokerCluster.ABRUPT;
    Map<Integer, Long> errorsBefore = perBroker("CopyErrors");
    MirroredTopic topic = MirroredTopic.create(admin, "crash.events", 3, 0, JITTERED_ROLLS);
    // Partition p is led by broker p.
    TopicIdPartition led =
        new TopicIdPartition(topicId(topic.name), new TopicPartition(topic.name, victim));
    Map<Integer, Long> end;
    try (SteadyProducer producer = startProducing(topic)) {
      RemoteLogSegmentMetadata inFlight =
          await("broker " + victim + " copying a segment of " + led)
              .atMost(TierChecks.AWAIT)
              .pollInterval(Duration.ofMillis(20))
              .until(() -> copyStartedBy(victim, led), Optional::isPresent)
              .get();
      Map<Integer, Long> before = topic.lastAcked();
      cluster.stopAbruptly(victim);
      System.out.printf("Stopped broker %d while it copied %s%n", victim, inFlight);
      checks.awaitTieredThrough(topic, before, "with broker " + victim + " stopped abruptly");
      restartAndLeadAgain(topic, victim);
      end = producer.stop();
    }
    assertRetentionEmptiesTheTable(
        topic, assertAfterScenario(topic, end, errorsBefore, 2)); // partition 2 moves, and back
  }

  private SteadyProducer startProducing(MirroredTopic topic) {
    SteadyProducer producer = new SteadyProducer(topic, cluster.bootstrapServers(), TICK);
    // Every partition has tiered segments of its first leader before any leader moves.
    checks.awaitTieredThrough(topic, constant(topic, 30), "before any leader change");
    return producer;
  }

  private static Map<Integer, Long> constant(MirroredTopic topic, long offset) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int p = 0; p < topic.partitions; p++) {
      out.put(p, offset);
    }
    return out;
  }

  /** A copy that broker {@code id}'s Kafka lists as started and not yet finished. */
  private Optional<RemoteLogSegmentMetadata> copyStartedBy(int id, TopicIdPartition tp)
      throws Exception {
    List<RemoteLogSegmentMetadata> started = new ArrayList<>();
    cluster
        .remoteLogManager(id)
        .remoteLogMetadataManager()
        .listRemoteLogSegments(tp)
        .forEachRemaining(
            m -> {
              if (m.state() == RemoteLogSegmentState.COPY_SEGMENT_STARTED && m.brokerId() == id) {
                started.add(m);
              }
            });
    return started.stream().findFirst();
  }

  private Uuid topicId(String topic) throws Exception {
    return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
  }

  /**
   * Starts broker {@code id} again, awaits it back in the ISR of every partition of the topic, has
   * it lead its preferred partitions again, and awaits tiering past what was produced till then.
   */
  private void restartAndLeadAgain(MirroredTopic topic, int id) throws Exception {
    cluster.restart(id);
    await("broker " + id + " back in the ISR of every partition of " + topic.name)
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                describe(topic.name).partitions().stream()
                    .allMatch(p -> p.isr().stream().anyMatch(n -> n.id() == id)));
    Map<Integer, Long> before = topic.lastAcked();
    electPreferred(topic);
    checks.awaitTieredThrough(topic, before, "after broker " + id + " leads again");
  }

  /**
   * Reorders each partition's replicas so that its preferred leader is the one {@code shift}
   * brokers after the topic's first assignment, then runs a preferred-leader election: leadership
   * moves to an in-sync follower without any broker stopping.
   */
  private void movePreferredLeaders(MirroredTopic topic, int shift) throws Exception {
    Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
    for (int p = 0; p < topic.partitions; p++) {
      int leader = (p + shift) % 3;
      moves.put(
          new TopicPartition(topic.name, p),
          Optional.of(
              new NewPartitionReassignment(List.of(leader, (leader + 1) % 3, (leader + 2) % 3))));
    }
    admin.alterPartitionReassignments(moves).all().get();
    await("reassignment of " + topic.name)
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> admin.listPartitionReassignments(moves.keySet()).reassignments().get().isEmpty());
    electPreferred(topic);
  }

  /** Runs a preferred-leader election and awaits every partition led by its first replica. */
  private void electPreferred(MirroredTopic topic) throws Exception {
    Set<TopicPartition> partitions = new HashSet<>();
    for (int p = 0; p < topic.partitions; p++) {
      partitions.add(new TopicPartition(topic.name, p));
    }
    // A partition already led by its preferred replica answers ElectionNotNeeded: the await below
    // is what counts.
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

  private TopicDescription describe(String topic) throws Exception {
    return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
  }

  private Map<Integer, Long> perBroker(String metric) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int id : ThreeBrokerCluster.BROKERS) {
      out.put(id, cluster.floeMetric(id, metric));
    }
    return out;
  }

  /** What a scenario left: the table, the last tiered offsets, and Kafka's partial overlaps. */
  private record Outcome(Table table, Map<Integer, Long> tiered, int partialOverlaps) {}

  /** The checks after every scenario (see the class comment). */
  private Outcome assertAfterScenario(
      MirroredTopic topic, Map<Integer, Long> end, Map<Integer, Long> errorsBefore, int leaderMoves)
      throws Exception {
    Map<Integer, Long> tiered = checks.awaitAllTieredAndRemoteOnly(topic, end);
    checks.assertConsumersReadBack(topic);
    Table table = checks.table(catalog, topic.name);
    checks.assertTableHoldsEachRecordOnce(table, topic, tiered);
    System.out.printf("%s: orphan audit: %s%n", topic.name, TierChecks.assertNoOrphans(table));
    int overlaps = checks.assertEveryRemoteSegmentServesExactly(topic);
    List<SegmentSummary.Segment> overlapCommits = TierChecks.overlapSnapshots(table);
    System.out.printf(
        "%s: tiered %s; remote segments%s; %d pairs overlap in part; copies %s, commit attempts %s,"
            + " failed copies %s; %d commits hid rows of another replica's copy: %s%n",
        topic.name,
        tiered,
        checks.describeRemoteSegments(topic),
        overlaps,
        perBroker("CopyCount"),
        perBroker("CommitAttempts"),
        perBroker("CopyErrors"),
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
    // A leader that loses its leadership has its copy in flight interrupted by Kafka (the plugin
    // reports it as a failed copy; nothing of it is committed); any other failure, or more of them
    // than leaders moved, is a fault.
    List<String> logged = warnings.drain();
    assertThat(logged)
        .as("plugin warnings other than copies Kafka interrupted")
        .allMatch(m -> m.contains("Copying segment") && INTERRUPTED.matcher(m).find());
    int moves = cluster.leaderMoves(topic.name, topic.partitions);
    assertThat(moves).as("leader moves of %s", topic.name).isGreaterThanOrEqualTo(leaderMoves);
    long cancellations = cluster.floeMetric("CopyCancellations");
    assertThat(cancellations - cancellationsSeen + logged.size())
        .as("copies cancelled or interrupted when %d leaders moved: %s", moves, logged)
        .isLessThanOrEqualTo(moves);
    cancellationsSeen = cancellations;
    Map<Integer, Long> errors = perBroker("CopyErrors");
    long failed = 0;
    for (int id : ThreeBrokerCluster.BROKERS) {
      failed += errors.get(id) - errorsBefore.get(id);
    }
    assertThat(failed)
        .as("failed copies counted, each of them logged")
        .isLessThanOrEqualTo(logged.size());
    assertThat(cluster.floeMetric("FetchErrors")).as("failed fetches").isZero();
    assertThat(cluster.floeMetric("DeleteErrors")).as("failed deletes").isZero();
    return new Outcome(table, tiered, overlaps);
  }

  /**
   * Retention deletes every remote segment Kafka knows of the topic (each leader's, overlapping or
   * not), and the table follows: no row left, none brought back by a deleted segment's overlap
   * deletes, no failed delete.
   */
  private void assertRetentionEmptiesTheTable(MirroredTopic topic, Outcome outcome)
      throws Exception {
    long deletes = cluster.floeMetric("DeleteCount");
    checks.assertRetentionEmptiesTheTable(outcome.table(), topic, outcome.tiered());
    assertThat(cluster.floeMetric("DeleteCount")).as("segments deleted").isGreaterThan(deletes);
    assertThat(cluster.floeMetric("DeleteErrors")).as("failed deletes").isZero();
    assertThat(warnings.drain()).as("plugin warnings while deleting").isEmpty();
  }
}
