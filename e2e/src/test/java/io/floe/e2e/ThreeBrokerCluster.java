package io.floe.e2e;

import static org.awaitility.Awaitility.await;

import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.testing.TestCatalogs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import kafka.server.BrokerServer;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.metadata.LeaderAndIsr;
import org.apache.kafka.server.log.remote.storage.RemoteLogManager;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;

/**
 * Three KRaft brokers (ids 0, 1, 2) and one controller (id 3000), in process, each broker with the
 * Floe RSM, all writing into one shared Iceberg catalog: the smallest production shape (replication
 * factor 3, {@code min.insync.replicas=2}, the remote log metadata topic replicated on all three).
 * Catalog properties are a parameter (the SQLite JdbcCatalog of {@link
 * FloeCluster#s3CatalogProperties} today; a PostgreSQL or REST catalog fixture plugs in the same
 * way: whatever {@link CatalogUtil#buildIcebergCatalog} builds from them, with {@code type} or
 * {@code catalog-impl}).
 *
 * <p>Broker {@link #ABRUPT} runs with {@code controlled.shutdown.enable=false}, so {@link
 * #stopAbruptly} stops it without the controlled shutdown that moves its leaders away first: the
 * controller learns it is gone only when its heartbeats stop ({@code broker.session.timeout.ms}),
 * as after a SIGKILL, and its clean-shutdown markers are removed so that it starts again as a
 * crashed broker does (log recovery, no clean-shutdown broker epoch). What the in-process kit
 * cannot do is stop its threads at an arbitrary instruction: its Remote Log Manager is closed
 * (in-flight copies are interrupted or fail as the plugin closes under them), and the log files are
 * flushed and closed, where a killed process leaves them to the page cache.
 *
 * <p>The plugin's JMX counters are registered per broker ({@code broker=<id>}) and start from zero
 * when a broker restarts; {@link #floeMetric} adds what a stopped instance had counted.
 */
final class ThreeBrokerCluster implements AutoCloseable {
  static final List<Integer> BROKERS = List.of(0, 1, 2);

  /** The broker that stops without a controlled shutdown. */
  static final int ABRUPT = 2;

  /** How long the controller waits for a silent broker's heartbeat before it fences it. */
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

  /** The plugin counters the tests read. */
  static final List<String> METRICS =
      List.of(
          "CopyCount",
          "CopyErrors",
          "CommitAttempts",
          "CopyCancellations",
          "FetchCount",
          "FetchErrors",
          "DeleteCount",
          "DeleteErrors");

  final KafkaClusterTestKit kit;
  final Map<String, String> catalogProperties;
  private final Map<String, Long> retiredCounts = new ConcurrentHashMap<>();

  private ThreeBrokerCluster(KafkaClusterTestKit kit, Map<String, String> catalogProperties) {
    this.kit = kit;
    this.catalogProperties = catalogProperties;
  }

  static ThreeBrokerCluster start(
      Map<String, String> catalogProperties, Map<String, String> extraRsmConfig) throws Exception {
    TestKitNodes nodes =
        new TestKitNodes.Builder()
            .setCombined(false)
            .setNumBrokerNodes(BROKERS.size())
            .setNumControllerNodes(1)
            .setPerServerProperties(Map.of(ABRUPT, Map.of("controlled.shutdown.enable", "false")))
            .build();
    return new ThreeBrokerCluster(
        FloeCluster.startKit(nodes, brokerConfig(catalogProperties, extraRsmConfig)),
        catalogProperties);
  }

  /** {@link FloeCluster#brokerConfig} with the replication a three-broker cluster runs with. */
  static Map<String, String> brokerConfig(
      Map<String, String> catalogProperties, Map<String, String> extraRsmConfig) {
    Map<String, String> c =
        new HashMap<>(FloeCluster.brokerConfig(catalogProperties, extraRsmConfig));
    c.put("rlmm.config.remote.log.metadata.topic.replication.factor", "3");
    c.put("rlmm.config.remote.log.metadata.topic.num.partitions", "3");
    c.put("default.replication.factor", "3");
    c.put("min.insync.replicas", "2");
    c.put("offsets.topic.replication.factor", "3");
    c.put("transaction.state.log.replication.factor", "3");
    c.put("transaction.state.log.min.isr", "2");
    // Leaders go back to their preferred replica only when a test asks (electLeaders).
    c.put("auto.leader.rebalance.enable", "false");
    c.put("broker.heartbeat.interval.ms", "500");
    c.put("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT.toMillis()));
    // A follower that stopped fetching leaves the ISR within seconds, not 30 s.
    c.put("replica.lag.time.max.ms", "5000");
    return c;
  }

  String bootstrapServers() {
    return kit.bootstrapServers();
  }

  Admin admin() {
    return Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrapServers()));
  }

  /** A catalog of the test's own on the brokers' catalog properties. */
  Catalog catalog() {
    return CatalogUtil.buildIcebergCatalog(
        TestCatalogs.CATALOG_NAME, new HashMap<>(catalogProperties), null);
  }

  BrokerServer broker(int id) {
    return kit.brokers().get(id);
  }

  /** The Remote Log Manager of a running broker. */
  RemoteLogManager remoteLogManager(int id) {
    return broker(id).remoteLogManagerOpt().get();
  }

  /**
   * Stops a broker with a controlled shutdown: the controller moves its leaders to other in-sync
   * replicas before it stops.
   */
  void stopGracefully(int id) {
    if (!Boolean.TRUE.equals(broker(id).config().controlledShutdownEnable())) {
      throw new IllegalArgumentException("Broker " + id + " has no controlled shutdown");
    }
    stop(id);
  }

  /**
   * Stops broker {@link #ABRUPT} without a controlled shutdown and removes its clean-shutdown
   * markers (see the class comment for what this does and does not share with a SIGKILL).
   */
  void stopAbruptly(int id) throws IOException {
    if (!Boolean.FALSE.equals(broker(id).config().controlledShutdownEnable())) {
      throw new IllegalArgumentException("Broker " + id + " stops with a controlled shutdown");
    }
    stop(id);
    int removed = 0;
    for (String dir : kit.nodes().brokerNodes().get(id).logDataDirectories()) {
      if (Files.deleteIfExists(Path.of(dir, CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME))) {
        removed++;
      }
    }
    if (removed == 0) {
      throw new IllegalStateException("Broker " + id + " left no clean-shutdown marker to remove");
    }
  }

  /**
   * Waits until every partition of the internal topics ({@code __remote_log_metadata}, offsets,
   * transactions) that broker {@code id} leads has another in-sync replica, so that stopping it
   * leaves each of them a leader. Right after start a follower may not have joined yet; a stopped
   * sole leader of a remote log metadata partition stalls every broker's tiering (a run stopped
   * broker 1 a second after start: broker 0's copies then waited 120 s to publish their metadata).
   */
  private void awaitInternalPartitionsFollowed(int id) {
    try (Admin admin = admin()) {
      await("internal partitions led by broker " + id + " have another in-sync replica")
          .atMost(TierChecks.AWAIT)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(() -> internalPartitionsLedAlone(admin, id).isEmpty());
    }
  }

  private static List<String> internalPartitionsLedAlone(Admin admin, int id) throws Exception {
    Set<String> internal = new HashSet<>();
    for (String name : admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get()) {
      if (name.startsWith("__")) {
        internal.add(name);
      }
    }
    List<String> alone = new ArrayList<>();
    for (TopicDescription d : admin.describeTopics(internal).allTopicNames().get().values()) {
      for (TopicPartitionInfo p : d.partitions()) {
        boolean ledHere = p.leader() != null && p.leader().id() == id;
        if (ledHere && p.replicas().size() > 1 && p.isr().size() < 2) {
          alone.add(d.name() + "-" + p.partition());
        }
      }
    }
    return alone;
  }

  private void stop(int id) {
    awaitInternalPartitionsFollowed(id);
    BrokerServer b = broker(id);
    for (String metric : METRICS) {
      retiredCounts.merge(id + "/" + metric, jmxCount(id, metric), Long::sum);
    }
    b.shutdown();
    b.awaitShutdown();
  }

  /** Starts a stopped broker again on its log directories and waits until it is unfenced. */
  void restart(int id) throws Exception {
    broker(id).startup();
    // Not kit.waitForReadyBrokers(): it waits for all three, and another may be stopped.
    broker(id).lifecycleManager().initialUnfenceFuture().get(2, TimeUnit.MINUTES);
  }

  /**
   * How many times the partitions of a topic created at leader epoch 0 have changed leader since,
   * the ones the test made and the ones the controller made on its own (a broker whose heartbeats
   * came late on a loaded machine is fenced and loses its leaders): the sum of the partitions'
   * leader epochs, as the running brokers know them.
   */
  int leaderMoves(String topic, int partitions) {
    int moves = 0;
    for (int p = 0; p < partitions; p++) {
      int epoch = 0;
      for (int id : BROKERS) {
        if (!broker(id).isShutdown()) {
          epoch =
              Math.max(
                  epoch,
                  broker(id)
                      .metadataCache()
                      .getLeaderAndIsr(topic, p)
                      .map(LeaderAndIsr::leaderEpoch)
                      .orElse(0));
        }
      }
      moves += epoch;
    }
    return moves;
  }

  /**
   * A plugin counter of broker {@code id}, summed over its plugin instances in this cluster's life
   * (a restarted broker's new instance counts from zero).
   */
  long floeMetric(int id, String metric) {
    long current = broker(id).isShutdown() ? 0 : jmxCount(id, metric);
    return retiredCounts.getOrDefault(id + "/" + metric, 0L) + current;
  }

  /** A plugin counter summed over the three brokers. */
  long floeMetric(String metric) {
    return BROKERS.stream().mapToLong(id -> floeMetric(id, metric)).sum();
  }

  private static long jmxCount(int id, String metric) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      return (Long) server.getAttribute(FloeRsmMetrics.objectName(id, metric), "Count");
    } catch (InstanceNotFoundException e) {
      return 0; // the plugin was not configured yet
    } catch (Exception e) {
      throw new IllegalStateException("Reading " + metric + " of broker " + id, e);
    }
  }

  @Override
  public void close() throws Exception {
    kit.close();
  }
}
