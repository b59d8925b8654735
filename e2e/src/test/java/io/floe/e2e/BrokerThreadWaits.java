package io.floe.e2e;

import static io.floe.e2e.TieredTopic.AWAIT;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * For the fault tests that bound the plugin's waits: reads that make the broker fetch from the tier
 * during a fault, and the longest a call of the plugin held a broker thread.
 */
final class BrokerThreadWaits {
  private BrokerThreadWaits() {}

  /**
   * Reads {@code topic} from offset 0, whatever the broker answers, until {@code condition} holds
   * (the fetches the reads cause fail or time out).
   */
  static void readFromTheTierUntil(
      FloeCluster cluster, TieredTopic topic, String what, Callable<Boolean> condition) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(topic.tp));
      consumer.seek(topic.tp, 0);
      await(what)
          .atMost(AWAIT)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200));
                return condition.call();
              });
    }
  }

  /**
   * The longest any call of the plugin (copy, fetch, index fetch, delete) held a broker thread so
   * far: the plugin's CallLatency MaxMs, over the brokers of this JVM.
   */
  static long maxCallMs() throws Exception {
    ObjectName pattern =
        new ObjectName("kafka.server:type=FloeRemoteStorageManager,name=CallLatency,*");
    long max = 0;
    for (ObjectName n : ManagementFactory.getPlatformMBeanServer().queryNames(pattern, null)) {
      max =
          Math.max(max, (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(n, "MaxMs"));
    }
    return max;
  }
}
