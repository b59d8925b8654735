package io.floe.install;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads a broker process from outside: thread count and open file descriptors from {@code
 * /proc/<pid>}, heap and the plugin's metrics over JMX on the broker's loopback port.
 */
final class BrokerProbe {
  /**
   * The plugin latencies whose {@code MaxMs} says how long a broker thread was held: every call,
   * failed ones included ({@code CallLatency}), and successful copies, fetches and deletes.
   */
  static final List<String> LATENCIES =
      List.of("CallLatency", "CopyLatency", "FetchLatency", "DeleteLatency");

  /**
   * A process's resources at one moment; open files also by kind (sockets, Kafka's log directories,
   * jars, pipes and other anonymous handles, other files).
   */
  record Resources(
      long heapUsedAfterGcBytes, long threads, long openFiles, Map<String, Long> openFilesByKind) {}

  private BrokerProbe() {}

  /** Threads and open files from /proc, heap used right after a full GC over JMX. */
  static Resources resources(long pid, int jmxPort) throws IOException {
    long heap;
    try (JMXConnector jmx = connect(jmxPort)) {
      MemoryMXBean memory =
          ManagementFactory.newPlatformMXBeanProxy(
              jmx.getMBeanServerConnection(),
              ManagementFactory.MEMORY_MXBEAN_NAME,
              MemoryMXBean.class);
      memory.gc();
      heap = memory.getHeapMemoryUsage().getUsed();
    }
    Map<String, Long> byKind = openFilesByKind(pid);
    return new Resources(
        heap, threads(pid), byKind.values().stream().mapToLong(Long::longValue).sum(), byKind);
  }

  static long threads(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("Threads:")) {
        return Long.parseLong(line.substring("Threads:".length()).strip());
      }
    }
    throw new IllegalStateException("no Threads line in /proc/" + pid + "/status");
  }

  static Map<String, Long> openFilesByKind(long pid) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        String target;
        try {
          target = Files.readSymbolicLink(fd).toString();
        } catch (IOException closedMeanwhile) {
          continue;
        }
        out.merge(kind(target), 1L, Long::sum);
      }
    }
    return out;
  }

  private static String kind(String target) {
    if (target.startsWith("socket:")) {
      return "sockets";
    } else if (target.contains("/remote-log-index-cache/")) {
      return "remote index cache";
    } else if (target.contains("/kraft-logs/")) {
      return "log dirs";
    } else if (target.endsWith(".jar")) {
      return "jars";
    } else if (!target.startsWith("/")) {
      return "pipes and anonymous";
    }
    return "other files";
  }

  /**
   * The plugin's {@code MaxMs} of each latency on broker {@code brokerId} (0 for a latency not
   * registered yet).
   */
  static Map<String, Long> maxLatencies(int jmxPort, int brokerId) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (JMXConnector jmx = connect(jmxPort)) {
      MBeanServerConnection server = jmx.getMBeanServerConnection();
      for (String name : LATENCIES) {
        ObjectName bean =
            new ObjectName(
                "kafka.server:type=FloeRemoteStorageManager,broker=" + brokerId + ",name=" + name);
        try {
          out.put(name, (Long) server.getAttribute(bean, "MaxMs"));
        } catch (InstanceNotFoundException notYet) {
          out.put(name, 0L);
        }
      }
    }
    return out;
  }

  private static JMXConnector connect(int port) throws IOException {
    return JMXConnectorFactory.connect(
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"));
  }
}
