package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.rlmm.FloeRemoteLogMetadataManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's topic-based remote log metadata on a real broker, written as two replicas' copies of the
 * same offsets leave it after a leader change: Kafka's own lookup then has no segment for offsets
 * that a copied segment holds, and Floe's metadata manager finds that segment. Every other answer
 * is the same.
 */
class RemoteLogMetadataLookupTest {
  private static final TopicIdPartition TP =
      new TopicIdPartition(Uuid.randomUuid(), 0, "lookup.events");

  @TempDir Path dir;
  private FloeCluster cluster;
  private final List<AutoCloseable> managers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    cluster = FloeCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable m : managers) {
      m.close();
    }
    cluster.close();
  }

  @Test
  void aDemotedLeadersShorterCopyFinishingLastHidesNoOffset() throws Exception {
    FloeRemoteLogMetadataManager floe = manager(new FloeRemoteLogMetadataManager(), 100);
    TopicBasedRemoteLogMetadataManager kafkas =
        manager(new TopicBasedRemoteLogMetadataManager(), 101);
    // The new leader (broker 1, epoch 1 from offset 70) copies 28..79; the demoted leader's copy of
    // 35..63 finishes after it.
    RemoteLogSegmentMetadata successor = started(floe, 28, 79, Map.of(0, 28L, 1, 70L), 1, false);
    RemoteLogSegmentMetadata demoted = started(floe, 35, 63, Map.of(0, 35L), 2, true);
    finish(floe, successor);
    finish(floe, demoted);
    awaitFinished(kafkas, 2);

    assertThat(kafkas.remoteLogSegmentMetadata(TP, 0, 64))
        .as("Kafka's lookup: the segment starting nearest below 64 ends at 63")
        .isEmpty();

    for (long offset = 28; offset <= 79; offset++) {
      int epoch = offset < 70 ? 0 : 1;
      Optional<RemoteLogSegmentMetadata> expected =
          kafkas.remoteLogSegmentMetadata(TP, epoch, offset);
      Optional<RemoteLogSegmentMetadata> found = floe.remoteLogSegmentMetadata(TP, epoch, offset);
      assertThat(found).as("offset %d", offset).isPresent();
      if (expected.isPresent()) {
        assertThat(found).as("Kafka's answers are kept, offset %d", offset).isEqualTo(expected);
      } else {
        assertThat(found.get().remoteLogSegmentId())
            .as("offset %d", offset)
            .isEqualTo(successor.remoteLogSegmentId());
      }
    }
    assertThat(floe.lookupsFoundPastKafkasLookup()).isEqualTo(6); // 64..69
    assertThat(floe.remoteLogSegmentMetadata(TP, 1, 80)).as("past every segment").isEmpty();
    assertThat(floe.remoteLogSegmentMetadata(TP, 1, 64)).as("64 is of epoch 0").isEmpty();
    assertThat(kafkas.nextSegmentWithTxnIndex(TP, 0, 36))
        .as("Kafka's walk from 35..63 (no transaction index) to 64 ends there")
        .isEmpty();
    assertThat(floe.nextSegmentWithTxnIndex(TP, 0, 36).map(m -> m.remoteLogSegmentId()))
        .as("the walk to a transaction index goes on past 63")
        .contains(successor.remoteLogSegmentId());
  }

  @Test
  void aShorterCopyWithTheSameStartHidesNoOffset() throws Exception {
    FloeRemoteLogMetadataManager floe = manager(new FloeRemoteLogMetadataManager(), 102);
    TopicBasedRemoteLogMetadataManager kafkas =
        manager(new TopicBasedRemoteLogMetadataManager(), 103);
    RemoteLogSegmentMetadata first = started(floe, 100, 150, Map.of(3, 100L), 1, true);
    finish(floe, first);
    RemoteLogSegmentMetadata second = started(floe, 100, 149, Map.of(3, 100L), 2, true);
    finish(floe, second);
    awaitFinished(kafkas, 2);

    assertThat(kafkas.remoteLogSegmentMetadata(TP, 3, 150)).isEmpty();
    assertThat(floe.remoteLogSegmentMetadata(TP, 3, 150).map(m -> m.remoteLogSegmentId()))
        .contains(first.remoteLogSegmentId());
    assertThat(floe.remoteLogSegmentMetadata(TP, 3, 149).map(m -> m.remoteLogSegmentId()))
        .as("Kafka's answer kept")
        .contains(second.remoteLogSegmentId());
  }

  /** A metadata manager of the test's own, configured as a broker configures its own. */
  private <M extends TopicBasedRemoteLogMetadataManager> M manager(M m, int brokerId)
      throws Exception {
    Map<String, Object> config = new HashMap<>();
    config.put("remote.log.metadata.common.client.bootstrap.servers", cluster.bootstrapServers());
    config.put("broker.id", brokerId);
    config.put("log.dir", dir.resolve("rlmm-" + brokerId).toString());
    config.put("remote.log.metadata.topic.replication.factor", "1");
    config.put("remote.log.metadata.topic.num.partitions", "1");
    m.configure(config);
    managers.add(m);
    m.onBrokerReady();
    m.onPartitionLeadershipChanges(Set.of(TP), Set.of());
    await("remote log metadata of " + TP + " loaded")
        .atMost(Duration.ofSeconds(60))
        .until(() -> m.isReady(TP));
    return m;
  }

  private static RemoteLogSegmentMetadata started(
      TopicBasedRemoteLogMetadataManager m,
      long start,
      long end,
      Map<Integer, Long> epochs,
      int broker,
      boolean txnIndexEmpty)
      throws Exception {
    RemoteLogSegmentMetadata s =
        new RemoteLogSegmentMetadata(
            new RemoteLogSegmentId(TP, Uuid.randomUuid()),
            start,
            end,
            System.currentTimeMillis(),
            broker,
            System.currentTimeMillis(),
            1024,
            new TreeMap<>(epochs),
            txnIndexEmpty);
    m.addRemoteLogSegmentMetadata(s).get();
    return s;
  }

  private static void finish(TopicBasedRemoteLogMetadataManager m, RemoteLogSegmentMetadata s)
      throws Exception {
    m.updateRemoteLogSegmentMetadata(
            new RemoteLogSegmentMetadataUpdate(
                s.remoteLogSegmentId(),
                System.currentTimeMillis(),
                Optional.empty(),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED,
                s.brokerId()))
        .get();
  }

  /** Awaits {@code count} finished copies in what {@code m} has consumed. */
  private static void awaitFinished(TopicBasedRemoteLogMetadataManager m, int count) {
    await("the other manager consumed every event")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              int finished = 0;
              for (var it = m.listRemoteLogSegments(TP); it.hasNext(); ) {
                if (it.next().state() == RemoteLogSegmentState.COPY_SEGMENT_FINISHED) {
                  finished++;
                }
              }
              return finished == count;
            });
  }
}
