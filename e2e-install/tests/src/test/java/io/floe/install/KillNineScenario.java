package io.floe.install;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The setup the SIGKILL test and the soak share: shared services, three child brokers on one
 * catalog, and tiered topics whose partitions are led by every broker, with segments that roll
 * every few seconds (each replica at its own point) and local copies deleted a second after they
 * are tiered.
 */
final class KillNineScenario implements AutoCloseable {
  static final List<String> TOPICS = List.of("kill.orders", "kill.payments");
  static final int PARTITIONS = 3;

  /** Replicas roll every 3 to 6 s, each at its own random point (1 MiB is not reached). */
  static final Map<String, String> TOPIC_CONFIG =
      Map.of(
          "remote.storage.enable", "true",
          "segment.bytes", "1048576",
          "segment.ms", "6000",
          "segment.jitter.ms", "3000",
          "local.retention.ms", "1000",
          "retention.ms", "-1");

  final SharedServices services;
  final Map<String, String> catalog;
  final ChildKafkaCluster cluster;
  final Admin admin;
  final List<TopicPartition> partitions;
  final String warehouse;

  private KillNineScenario(
      SharedServices services,
      Map<String, String> catalog,
      ChildKafkaCluster cluster,
      Admin admin,
      List<TopicPartition> partitions) {
    this.services = services;
    this.catalog = catalog;
    this.cluster = cluster;
    this.admin = admin;
    this.partitions = partitions;
    this.warehouse = catalog.get("rsm.config.iceberg.warehouse");
  }

  /** Starts everything in {@code work} (emptied first) with a catalog of {@code kind}. */
  static KillNineScenario start(Path work, SharedServices.Kind kind) throws Exception {
    deleteRecursively(work);
    Files.createDirectories(work);
    SharedServices services = SharedServices.start(work);
    ChildKafkaCluster cluster = null;
    try {
      String name = "kill_" + kind.name().toLowerCase(Locale.ROOT);
      Map<String, String> catalog = services.brokerCatalog(kind, name);
      cluster =
          ChildKafkaCluster.start(work.resolve("cluster"), services.s3Port(), catalog, Map.of());
      Admin admin = cluster.admin();
      return new KillNineScenario(services, catalog, cluster, admin, createTopics(admin));
    } catch (Exception | AssertionError e) {
      if (cluster != null) {
        cluster.close();
      }
      services.close();
      throw e;
    }
  }

  /**
   * Topic {@code t}'s partition {@code p} has replicas starting with node {@code (t + p) % 3 + 1}:
   * its preferred leader, so every node leads some partitions of every topic.
   */
  static List<TopicPartition> createTopics(Admin admin) throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    List<TopicPartition> partitions = new ArrayList<>();
    for (int t = 0; t < TOPICS.size(); t++) {
      Map<Integer, List<Integer>> assignment = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        int first = (t + p) % 3;
        assignment.put(p, List.of(first + 1, (first + 1) % 3 + 1, (first + 2) % 3 + 1));
        partitions.add(new TopicPartition(TOPICS.get(t), p));
      }
      topics.add(new NewTopic(TOPICS.get(t), assignment).configs(TOPIC_CONFIG));
    }
    admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
    // Listing offsets succeeds only once every leader knows it leads: produce after that.
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(tp -> request.put(tp, OffsetSpec.latest()));
    await("leaders of " + TOPICS + " ready")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> admin.listOffsets(request).all().get().size() == partitions.size());
    return List.copyOf(partitions);
  }

  /** Awaits Kafka having tiered something of every partition: copies are under way everywhere. */
  void awaitTieringEverywhere() {
    KillChecks checks = checks();
    await("every partition has tiered segments")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () ->
                checks.offsets(OffsetSpec.latestTiered()).values().stream()
                    .allMatch(offset -> offset >= 0));
  }

  KillChecks checks() {
    return new KillChecks(cluster.bootstrapServers(), admin, partitions);
  }

  @Override
  public void close() throws Exception {
    try {
      admin.close(Duration.ofSeconds(5));
    } finally {
      try {
        cluster.close();
      } finally {
        services.close();
      }
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
