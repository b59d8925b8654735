package io.floe.headview;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A one-node KRaft cluster in process (combined broker and controller) with one-node internal
 * topics.
 */
public final class TestKafka {
  private TestKafka() {}

  public static KafkaClusterTestKit start(Map<String, String> extraBrokerConfig) throws Exception {
    TestKitNodes nodes =
        new TestKitNodes.Builder()
            .setCombined(true)
            .setNumBrokerNodes(1)
            .setNumControllerNodes(1)
            .build();
    KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
    Map<String, String> config =
        new HashMap<>(
            Map.of(
                "offsets.topic.replication.factor", "1",
                "offsets.topic.num.partitions", "1",
                "transaction.state.log.replication.factor", "1",
                "transaction.state.log.min.isr", "1",
                "transaction.state.log.num.partitions", "1",
                "group.initial.rebalance.delay.ms", "0"));
    config.putAll(extraBrokerConfig);
    config.forEach(builder::setConfigProp);
    KafkaClusterTestKit kafka = builder.build();
    try {
      kafka.format();
      kafka.startup();
      kafka.waitForReadyBrokers();
    } catch (Exception e) {
      kafka.close();
      throw e;
    }
    return kafka;
  }
}
