package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.e2e.MirroredTopic.Rec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unclean leader election on three brokers (a topic on two of them, so that the third keeps
 * Kafka's remote log metadata topic writable throughout): the leader, alone in the ISR, takes
 * records its follower never gets and tiers them; then it stops, and the follower that missed them
 * becomes the leader and writes other records at the same offsets. Kafka's log now diverges from
 * what was tiered. The new leader's copies overlap the old leader's, and the table must follow the
 * new leader's log: consumers reading from the tier get the new leader's records, and the table
 * holds each offset once with the new leader's record, none of the old leader's lost ones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UncleanLeaderElectionTest {
  private static final String TOPIC = "unclean.events";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int OLD_LEADER = 0;
  private static final int NEW_LEADER = 1;

  @TempDir static Path dir;

  private ThreeBrokerCluster cluster;
  private Admin admin;
  private Catalog catalog;
  private TierChecks checks;

  @BeforeAll
  void start() throws Exception {
    cluster = ThreeBrokerCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
    admin = cluster.admin();
    catalog = cluster.catalog();
    checks = new TierChecks(cluster, admin);
  }

  @AfterAll
  void stop() throws Exception {
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
  void theTableFollowsTheNewLeadersLog() throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic(TOPIC, Map.of(0, List.of(OLD_LEADER, NEW_LEADER)))
                    .configs(
                        Map.of(
                            "remote.storage.enable", "true",
                            "segment.bytes", "1048576",
                            "local.retention.ms", "1000",
                            "retention.ms", "-1",
                            "min.insync.replicas", "1"))))
        .all()
        .get();
    awaitLeader(Set.of(OLD_LEADER));
    List<Rec> expected = new ArrayList<>(produce("agreed", 150));

    cluster.stopGracefully(NEW_LEADER);
    await("the old leader alone in the ISR")
        .atMost(TierChecks.AWAIT)
        .until(() -> partition().isr().size() == 1);
    List<Rec> lost = produce("lost", 250);
    long lostFrom = lost.get(0).offset();
    // The old leader tiers well into the records only it has.
    await("the old leader tiers past offset " + (lostFrom + 100))
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(() -> latestTiered() >= lostFrom + 100);

    cluster.stopGracefully(OLD_LEADER);
    cluster.restart(NEW_LEADER);
    await("an unclean election of a replica that missed the old leader's last records")
        .atMost(TierChecks.AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              admin.electLeaders(ElectionType.UNCLEAN, Set.of(TP)).partitions().get();
              TopicPartitionInfo p = partition();
              return p.leader() != null && p.leader().id() == NEW_LEADER;
            });
    assertThat(latestOffset()).as("the new leader's log end").isEqualTo(lostFrom);
    expected.addAll(produce("new-leader", 300));
    cluster.restart(OLD_LEADER); // a follower now: it truncates what the others never had

    long last = expected.get(expected.size() - 1).offset();
    Map<Integer, Long> tiered = checks.awaitAllTieredAndRemoteOnly(TOPIC, 1, Map.of(0, last));
    assertThat(tiered.get(0)).as("tiered end").isEqualTo(last);
    long straddlingEnd = oldLeadersSegmentEnd(lostFrom - 1);
    for (IsolationLevel isolation : IsolationLevel.values()) {
      assertKafkaServes(checks.consume(TOPIC, 1, isolation), expected, lost, straddlingEnd);
    }
    Table table = checks.table(catalog, TOPIC);
    TierChecks.assertSame(
        "the table after the unclean election",
        TierChecks.rowsByPartition(table).getOrDefault(0, List.of()),
        expected);
    TierChecks.assertNoOrphans(table);
    assertThat(TierChecks.overlapSnapshots(table))
        .as("copies of the new leader that hid the old leader's rows at the same offsets")
        .isNotEmpty();
  }

  /**
   * Consumers read every offset once, in order, and the new leader's records, except where Kafka
   * itself reads the old leader's remote segment that holds the last agreed offset: that segment
   * goes on with records the new leader never had, and Kafka's Remote Log Manager serves them from
   * it (with any remote storage: it picks the segment by the leader epoch of the fetch offset and
   * reads on to the end of the fetch) up to some offset in it, after which it reads the new
   * leader's segments. Floe serves each segment exactly; the table (checked below) follows the new
   * leader throughout.
   */
  private static void assertKafkaServes(
      List<Rec> read, List<Rec> expected, List<Rec> lost, long straddlingEnd) {
    assertThat(read.stream().map(Rec::offset).toList())
        .as("offsets read")
        .isEqualTo(expected.stream().map(Rec::offset).toList());
    long lostFrom = lost.get(0).offset();
    boolean switched = false;
    for (int i = 0; i < read.size(); i++) {
      Rec r = read.get(i);
      boolean oldLeadersRecord =
          r.offset() >= lostFrom
              && r.offset() <= straddlingEnd
              && r.offset() - lostFrom < lost.size()
              && r.equals(lost.get((int) (r.offset() - lostFrom)));
      if (oldLeadersRecord && !switched) {
        continue;
      }
      switched |= r.offset() >= lostFrom;
      assertThat(r).as("record at offset %d", r.offset()).isEqualTo(expected.get(i));
    }
  }

  /** The end of the old leader's remote segment holding {@code offset}. */
  private long oldLeadersSegmentEnd(long offset) throws Exception {
    return checks.remoteSegments(TOPIC, 0).stream()
        .filter(m -> m.brokerId() == OLD_LEADER)
        .filter(m -> m.startOffset() <= offset && offset <= m.endOffset())
        .findFirst()
        .orElseThrow()
        .endOffset();
  }

  /**
   * Sends {@code count} records acknowledged by every in-sync replica; returns them as Kafka has
   * them.
   */
  private List<Rec> produce(String phase, int count) throws Exception {
    Map<String, Object> props =
        Map.of(
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            false,
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
            1);
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    Random random = new Random(phase.hashCode());
    try (KafkaProducer<byte[], byte[]> producer =
        MirroredTopic.producer(cluster.bootstrapServers(), props)) {
      for (int i = 0; i < count; i++) {
        byte[] value = new byte[MirroredTopic.VALUE_BYTES];
        random.nextBytes(value);
        ProducerRecord<byte[], byte[]> record =
            new ProducerRecord<>(
                TOPIC, 0, (phase + "-" + i).getBytes(StandardCharsets.UTF_8), value);
        sent.add(record);
        acks.add(producer.send(record));
      }
      producer.flush();
    }
    List<Rec> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ProducerRecord<byte[], byte[]> r = sent.get(i);
      out.add(
          new Rec(
              0,
              acks.get(i).get().offset(),
              new String(r.key(), StandardCharsets.UTF_8),
              r.value().length,
              MirroredTopic.digest(ByteBuffer.wrap(r.value()))));
    }
    return out;
  }

  private void awaitLeader(Set<Integer> leaders) {
    await("partition led by one of " + leaders)
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(() -> leaders.contains(partition().leader().id()) && latestOffset() >= 0);
  }

  private TopicPartitionInfo partition() throws Exception {
    TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
    return d.partitions().get(0);
  }

  private long latestTiered() throws Exception {
    return checks.offsets(TOPIC, 1, OffsetSpec.latestTiered()).get(0);
  }

  private long latestOffset() throws Exception {
    return checks.offsets(TOPIC, 1, OffsetSpec.latest()).get(0);
  }
}
