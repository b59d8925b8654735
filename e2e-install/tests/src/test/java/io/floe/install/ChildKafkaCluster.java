package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.demo.ChildJvm;
import io.floe.demo.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * Three Kafka 4.4.0 nodes as child processes (Kafka's own jars only, Floe from the dist folder),
 * each a combined KRaft controller and broker, so the three-voter quorum and every partition
 * survive any one of them dying. Replication factor 3, {@code min.insync.replicas=2}, no unclean
 * leader election; every node tiers into the same catalog and warehouse.
 *
 * <p>A node can be killed with SIGKILL ({@link #kill}) and started again on its data directory
 * ({@link #restart}). Each start logs to a file of its own ({@code broker-<id>.<n>.log}) and serves
 * JMX on a loopback port of its own, so tests can read the plugin's metrics and the JVM's heap.
 */
final class ChildKafkaCluster implements AutoCloseable {
  static final List<Integer> NODES = List.of(1, 2, 3);

  static final Path KAFKA_LIBS =
      Path.of(System.getProperty("floe.install.kafka.4.4.0", "../kafka-4.4.0/target/libs"));
  static final Path PLUGIN_DIR =
      Path.of(System.getProperty("floe.install.dist", "../floe-dist/target/floe-dist"));
  static final Path SHIPPED_CONFIG =
      Path.of(
          System.getProperty(
              "floe.install.server-properties", "../../broker-config/server.properties"));

  /** One node: its ports, directory and config. */
  record Node(int id, int port, int controllerPort, int jmxPort, Path dir, Path config) {}

  private final Map<Integer, Node> nodes;
  private final List<String> baseJvm;
  private final Map<Integer, ChildJvm> running = new ConcurrentHashMap<>();
  private final Map<Integer, Integer> starts = new ConcurrentHashMap<>();
  private final List<Path> logs = new CopyOnWriteArrayList<>();

  private ChildKafkaCluster(Map<Integer, Node> nodes, List<String> baseJvm) {
    this.nodes = nodes;
    this.baseJvm = baseJvm;
  }

  /**
   * Formats and starts the three nodes and waits until all three brokers are registered. {@code
   * catalog} holds the {@code rsm.config.iceberg.*} keys of the shared catalog; {@code extra} any
   * other broker setting.
   */
  static ChildKafkaCluster start(
      Path dir, int s3Port, Map<String, String> catalog, Map<String, String> extra)
      throws Exception {
    Map<Integer, Node> nodes = new TreeMap<>();
    for (int id : NODES) {
      Path nodeDir = dir.resolve("node-" + id);
      nodes.put(
          id,
          new Node(
              id,
              ChildJvm.freePort(),
              ChildJvm.freePort(),
              ChildJvm.freePort(),
              nodeDir,
              nodeDir.resolve("server.properties")));
    }
    String bootstrapControllers =
        nodes.values().stream()
            .map(n -> "127.0.0.1:" + n.controllerPort())
            .collect(Collectors.joining(","));
    Map<Integer, Uuid> directoryIds = new TreeMap<>();
    for (Node n : nodes.values()) {
      Map<String, String> config = new HashMap<>(brokerConfig(catalog));
      config.put("node.id", Integer.toString(n.id()));
      config.put("controller.quorum.bootstrap.servers", bootstrapControllers);
      config.putAll(extra);
      LocalStack.writeBrokerConfig(
          SHIPPED_CONFIG, n.dir(), n.port(), n.controllerPort(), s3Port, PLUGIN_DIR, config);
      directoryIds.put(n.id(), Uuid.randomUuid());
    }
    ChildKafkaCluster cluster =
        new ChildKafkaCluster(nodes, LocalStack.brokerJvmArgs(Files.createDirectories(dir)));
    cluster.format(Uuid.randomUuid().toString(), directoryIds);
    try {
      for (int id : NODES) {
        cluster.restart(id);
      }
      try (Admin admin = cluster.admin()) {
        await("three brokers registered")
            .atMost(Duration.ofMinutes(4))
            .pollInterval(Duration.ofMillis(250))
            .ignoreExceptionsMatching(e -> !(e instanceof IllegalStateException))
            .until(
                () -> {
                  cluster.running.values().forEach(ChildJvm::checkAlive);
                  return admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == 3;
                });
      }
      return cluster;
    } catch (Exception | AssertionError e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * The production shape on top of LocalStack's fast-tiering settings: replication and ISR sizes of
   * three nodes, failure detection in seconds (a killed broker is fenced after {@code
   * broker.session.timeout.ms}, a silent follower leaves the ISR after {@code
   * replica.lag.time.max.ms}).
   */
  private static Map<String, String> brokerConfig(Map<String, String> catalog) {
    Map<String, String> c = new HashMap<>(LocalStack.fastTiering());
    c.put("process.roles", "broker,controller");
    c.put("default.replication.factor", "3");
    c.put("min.insync.replicas", "2");
    c.put("unclean.leader.election.enable", "false");
    c.put("offsets.topic.replication.factor", "3");
    c.put("transaction.state.log.replication.factor", "3");
    c.put("transaction.state.log.min.isr", "2");
    c.put("share.coordinator.state.topic.replication.factor", "3");
    c.put("share.coordinator.state.topic.min.isr", "2");
    c.put("rlmm.config.remote.log.metadata.topic.replication.factor", "3");
    c.put("broker.heartbeat.interval.ms", "500");
    c.put("broker.session.timeout.ms", "3000");
    c.put("replica.lag.time.max.ms", "5000");
    c.put("leader.imbalance.check.interval.seconds", "10");
    c.putAll(catalog);
    return c;
  }

  private void format(String clusterId, Map<Integer, Uuid> directoryIds) throws Exception {
    String initialControllers =
        nodes.values().stream()
            .map(n -> n.id() + "@127.0.0.1:" + n.controllerPort() + ":" + directoryIds.get(n.id()))
            .collect(Collectors.joining(","));
    ExecutorService formatters = Executors.newFixedThreadPool(NODES.size());
    try {
      List<Future<String>> done = new ArrayList<>();
      for (Node n : nodes.values()) {
        done.add(
            formatters.submit(
                () ->
                    ChildJvm.run(
                        "StorageTool format node " + n.id(),
                        KAFKA_LIBS,
                        baseJvm,
                        "kafka.tools.StorageTool",
                        List.of(
                            "format",
                            "-t",
                            clusterId,
                            "-c",
                            n.config().toString(),
                            "--initial-controllers",
                            initialControllers),
                        n.dir().resolve("format.log"),
                        90)));
      }
      for (Future<String> f : done) {
        f.get();
      }
    } finally {
      formatters.shutdownNow();
    }
  }

  /** Starts node {@code id} (again) on its data directory; returns at once. */
  void restart(int id) throws IOException {
    if (running.containsKey(id)) {
      throw new IllegalStateException("Node " + id + " is running");
    }
    Node n = nodes.get(id);
    int start = starts.merge(id, 1, Integer::sum);
    Path log = n.dir().resolve("broker-" + id + "." + start + ".log");
    List<String> jvm = new ArrayList<>(baseJvm);
    // C1 only: a broker that is started twenty times on two cores spends less CPU compiling
    jvm.add("-XX:TieredStopAtLevel=1");
    jvm.addAll(jmxFlags(n.jmxPort()));
    running.put(
        id,
        ChildJvm.start(
            "Kafka node " + id + " (start " + start + ")",
            LocalStack.brokerClasspath(KAFKA_LIBS, PLUGIN_DIR),
            jvm,
            "kafka.Kafka",
            List.of(n.config().toString()),
            log));
    logs.add(log);
  }

  /** JMX without authentication, on 127.0.0.1 only (one port for the registry and the server). */
  private static List<String> jmxFlags(int port) {
    return List.of(
        "-Dcom.sun.management.jmxremote",
        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1",
        "-Dcom.sun.management.jmxremote.port=" + port,
        "-Dcom.sun.management.jmxremote.rmi.port=" + port,
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false");
  }

  /** SIGKILL to node {@code id}; returns once the process is gone. */
  void kill(int id) throws InterruptedException {
    ChildJvm node = running.remove(id);
    if (node == null) {
      throw new IllegalStateException("Node " + id + " is not running");
    }
    node.kill();
  }

  boolean isRunning(int id) {
    return running.containsKey(id);
  }

  ChildJvm process(int id) {
    ChildJvm node = running.get(id);
    if (node == null) {
      throw new IllegalStateException("Node " + id + " is not running");
    }
    return node;
  }

  /** The log of node {@code id}'s current start. */
  Path currentLog(int id) {
    return process(id).log();
  }

  /** The logs of every start of every node so far. */
  List<Path> logs() {
    return List.copyOf(logs);
  }

  int jmxPort(int id) {
    return nodes.get(id).jmxPort();
  }

  int starts(int id) {
    return starts.getOrDefault(id, 0);
  }

  String bootstrapServers() {
    return nodes.values().stream()
        .map(n -> "127.0.0.1:" + n.port())
        .collect(Collectors.joining(","));
  }

  Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            15_000,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            5_000));
  }

  /** The server.properties of node 1 (the catalog settings are the same on every node). */
  Path config() {
    return nodes.get(NODES.get(0)).config();
  }

  /**
   * Awaits node {@code id}'s current start logging that it runs: the broker is unfenced (a node
   * that was killed and started again is out of every ISR until then).
   */
  void awaitStarted(int id, Duration atMost) {
    ChildJvm node = process(id);
    String started = "[KafkaRaftServer nodeId=" + id + "] Kafka Server started";
    await(node + " started")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              node.checkAlive();
              return node.output().contains(started);
            });
  }

  /**
   * Awaits every partition of every topic (internal ones included) having a leader and all its
   * replicas in sync: a restarted node has caught up and rejoined every ISR.
   */
  void awaitFullIsr(Admin admin, Duration atMost) {
    await("every replica back in sync")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsMatching(e -> !(e instanceof IllegalStateException))
        .until(
            () -> {
              running.values().forEach(ChildJvm::checkAlive);
              return partitions(admin).stream()
                  .allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size());
            });
  }

  private static List<TopicPartitionInfo> partitions(Admin admin) throws Exception {
    var names =
        admin
            .listTopics(new ListTopicsOptions().listInternal(true))
            .names()
            .get(10, TimeUnit.SECONDS);
    List<TopicPartitionInfo> out = new ArrayList<>();
    for (TopicDescription d :
        admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
      out.addAll(d.partitions());
    }
    return out;
  }

  /** How many partitions of {@code topics} each node leads now (nodes leading none included). */
  static Map<Integer, Integer> leaders(Admin admin, List<String> topics) throws Exception {
    Map<Integer, Integer> out = new TreeMap<>();
    NODES.forEach(id -> out.put(id, 0));
    for (TopicDescription d :
        admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
      for (TopicPartitionInfo p : d.partitions()) {
        if (p.leader() != null) {
          out.merge(p.leader().id(), 1, Integer::sum);
        }
      }
    }
    return out;
  }

  /** Kills every running node: nothing is kept after a test, so no shutdown is waited for. */
  @Override
  public void close() {
    for (int id : List.copyOf(running.keySet())) {
      try {
        kill(id);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
