package io.floe.rsm.metrics;

import io.floe.rows.PayloadCounts;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Typed keys and values per topic: {@code TypedPayloads}, {@code InexactPayloads} and {@code
 * UndecodablePayloads} counters named {@code
 * kafka.server:type=FloeRemoteStorageManager[,broker=<id>],topic=<topic>,name=<Name>}, registered
 * when a topic's first typed copy is recorded, so an operator sees which topic's records Floe could
 * not type.
 */
final class TopicPayloadMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(TopicPayloadMetrics.class);
  private static final List<String> NAMES =
      List.of("TypedPayloads", "InexactPayloads", "UndecodablePayloads");

  private final int brokerId;
  private final Map<String, FloeRsmMetrics.Counter[]> topics = new ConcurrentHashMap<>();
  private final List<ObjectName> registered;

  TopicPayloadMetrics(int brokerId, List<ObjectName> registered) {
    this.brokerId = brokerId;
    this.registered = registered;
  }

  void record(String topic, PayloadCounts payloads) {
    if (payloads.isEmpty()) {
      return;
    }
    FloeRsmMetrics.Counter[] counters = topics.computeIfAbsent(topic, this::register);
    counters[0].add(payloads.ok());
    counters[1].add(payloads.inexact());
    counters[2].add(payloads.undecodable());
  }

  static ObjectName objectName(int brokerId, String topic, String name) throws Exception {
    String broker = brokerId >= 0 ? ",broker=" + brokerId : "";
    return new ObjectName(
        FloeRsmMetrics.DOMAIN
            + ":type="
            + FloeRsmMetrics.TYPE
            + broker
            + ",topic="
            + ObjectName.quote(topic)
            + ",name="
            + name);
  }

  private FloeRsmMetrics.Counter[] register(String topic) {
    FloeRsmMetrics.Counter[] counters = new FloeRsmMetrics.Counter[NAMES.size()];
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (int i = 0; i < NAMES.size(); i++) {
      counters[i] = new FloeRsmMetrics.Counter();
      try {
        ObjectName name = objectName(brokerId, topic, NAMES.get(i));
        try {
          server.registerMBean(counters[i], name);
        } catch (InstanceAlreadyExistsException exists) {
          server.unregisterMBean(name);
          server.registerMBean(counters[i], name);
        }
        synchronized (registered) {
          registered.add(name);
        }
      } catch (Exception e) {
        LOG.warn("Could not register metric {} of topic {}: {}", NAMES.get(i), topic, e.toString());
      }
    }
    return counters;
  }
}
