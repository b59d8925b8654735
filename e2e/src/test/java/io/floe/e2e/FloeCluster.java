package io.floe.e2e;

import io.floe.catalog.HadoopConf;
import io.floe.testing.TestCatalogs;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import kafka.server.BrokerServer;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A one-node KRaft cluster (combined broker and controller, in process) whose remote tier is Floe,
 * writing to a JdbcCatalog on SQLite with an S3Proxy warehouse: the setup a user runs, with the
 * settings from shared/STACK.md.
 */
final class FloeCluster implements AutoCloseable {
  static final String RSM_PREFIX = "rsm.config.";

  final KafkaClusterTestKit kit;
  final Map<String, String> catalogProperties;

  private FloeCluster(KafkaClusterTestKit kit, Map<String, String> catalogProperties) {
    this.kit = kit;
    this.catalogProperties = catalogProperties;
  }

  /** Catalog properties for the broker's plugin and for the test's own reads of the same tables. */
  static Map<String, String> s3CatalogProperties(Path dir) {
    Map<String, String> props =
        new HashMap<>(TestCatalogs.properties(dir, TestCatalogs.Storage.S3));
    props.put("type", "jdbc");
    return props;
  }

  static FloeCluster start(
      Map<String, String> catalogProperties, Map<String, String> extraRsmConfig) throws Exception {
    TestKitNodes nodes =
        new TestKitNodes.Builder()
            .setCombined(true)
            .setNumBrokerNodes(1)
            .setNumControllerNodes(1)
            .build();
    return new FloeCluster(
        startKit(nodes, brokerConfig(catalogProperties, extraRsmConfig)), catalogProperties);
  }

  /** Formats and starts a cluster of {@code nodes} with {@code config}; closes it if that fails. */
  static KafkaClusterTestKit startKit(TestKitNodes nodes, Map<String, String> config)
      throws Exception {
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
    config.forEach(builder::setConfigProp);
    KafkaClusterTestKit kit = builder.build();
    try {
      kit.format();
      kit.startup();
      kit.waitForReadyBrokers();
    } catch (Exception e) {
      kit.close();
      throw e;
    }
    return kit;
  }

  static Map<String, String> brokerConfig(
      Map<String, String> catalogProperties, Map<String, String> extraRsmConfig) {
    Map<String, String> c = new HashMap<>();
    c.put("remote.log.storage.system.enable", "true");
    c.put("remote.log.storage.manager.class.name", "io.floe.rsm.FloeRemoteStorageManager");
    c.put("remote.log.storage.manager.impl.prefix", RSM_PREFIX);
    c.put("remote.log.metadata.manager.class.name", "io.floe.rlmm.FloeRemoteLogMetadataManager");
    c.put("remote.log.metadata.manager.listener.name", "EXTERNAL");
    c.put("rlmm.config.remote.log.metadata.topic.replication.factor", "1");
    c.put("rlmm.config.remote.log.metadata.topic.num.partitions", "1");
    c.put("remote.log.manager.task.interval.ms", "1000");
    c.put("log.retention.check.interval.ms", "1000");
    c.put("log.initial.task.delay.ms", "0");
    c.put("offsets.topic.replication.factor", "1");
    c.put("offsets.topic.num.partitions", "1");
    c.put("transaction.state.log.replication.factor", "1");
    c.put("transaction.state.log.min.isr", "1");
    c.put("transaction.state.log.num.partitions", "1");
    c.put("group.initial.rebalance.delay.ms", "0");
    catalogProperties.forEach((k, v) -> c.put(RSM_PREFIX + "iceberg." + k, v));
    c.put(RSM_PREFIX + "catalog.name", TestCatalogs.CATALOG_NAME);
    extraRsmConfig.forEach((k, v) -> c.put(RSM_PREFIX + k, v));
    return c;
  }

  JdbcCatalog catalog() {
    return catalog(catalogProperties);
  }

  /**
   * A catalog of the test's own on {@code properties} (for example reaching the store past a fault
   * proxy).
   */
  static JdbcCatalog catalog(Map<String, String> properties) {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(HadoopConf.create());
    Map<String, String> props = new HashMap<>(properties);
    props.remove("type");
    catalog.initialize(TestCatalogs.CATALOG_NAME, props);
    return catalog;
  }

  /**
   * Shuts the broker down and starts it again in this JVM, on the same log directories: a new
   * RemoteLogManager and a new plugin instance (configured again) pick up where the old ones
   * stopped.
   */
  void restartBroker() throws Exception {
    for (BrokerServer broker : kit.brokers().values()) {
      broker.shutdown();
      broker.awaitShutdown();
      broker.startup();
    }
    kit.waitForReadyBrokers();
  }

  String bootstrapServers() {
    return kit.bootstrapServers();
  }

  @Override
  public void close() throws Exception {
    kit.close();
  }
}
