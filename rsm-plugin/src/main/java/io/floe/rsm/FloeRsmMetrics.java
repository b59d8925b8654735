package io.floe.rsm;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's metrics, one JMX MBean each, named {@code
 * kafka.server:type=FloeRemoteStorageManager,name=<Name>} (plus {@code broker=<id>} when the broker
 * id is known, so several brokers in one JVM do not collide). Counters expose {@code Count};
 * latencies (copy, fetch until its stream is ready, delete) expose {@code Count}, {@code MeanMs}
 * and {@code MaxMs}.
 */
public final class FloeRsmMetrics implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FloeRsmMetrics.class);
  public static final String DOMAIN = "kafka.server";
  public static final String TYPE = "FloeRemoteStorageManager";

  /** A monotonically increasing count. */
  public interface CounterMBean {
    long getCount();
  }

  /** Latency of an operation: how many, mean and max in milliseconds. */
  public interface LatencyMBean {
    long getCount();

    double getMeanMs();

    long getMaxMs();
  }

  public static final class Counter implements CounterMBean {
    private final LongAdder count = new LongAdder();

    public void add(long n) {
      count.add(n);
    }

    public void increment() {
      count.increment();
    }

    @Override
    public long getCount() {
      return count.sum();
    }
  }

  public static final class Latency implements LatencyMBean {
    private final LongAdder count = new LongAdder();
    private final LongAdder totalMs = new LongAdder();
    private final AtomicLong maxMs = new AtomicLong();

    public void record(long ms) {
      count.increment();
      totalMs.add(ms);
      maxMs.accumulateAndGet(ms, Math::max);
    }

    @Override
    public long getCount() {
      return count.sum();
    }

    @Override
    public double getMeanMs() {
      long n = count.sum();
      return n == 0 ? 0 : (double) totalMs.sum() / n;
    }

    @Override
    public long getMaxMs() {
      return maxMs.get();
    }
  }

  public final Counter copies = new Counter();
  public final Counter copyBytes = new Counter();
  public final Counter copyRecords = new Counter();
  public final Counter copyErrors = new Counter();
  public final Counter commitAttempts = new Counter();
  public final Latency copyLatency = new Latency();
  public final Counter fetches = new Counter();
  public final Counter fetchBytes = new Counter();
  public final Counter fetchErrors = new Counter();

  /**
   * Until a fetch's stream is ready (segment opened, reader positioned); the bytes then flow as the
   * broker reads.
   */
  public final Latency fetchLatency = new Latency();

  public final Counter indexFetches = new Counter();
  public final Counter deletes = new Counter();
  public final Counter deleteErrors = new Counter();
  public final Latency deleteLatency = new Latency();

  private final List<ObjectName> registered = new ArrayList<>();

  /** Registers the MBeans; {@code brokerId} below 0 leaves the broker key out of the names. */
  public FloeRsmMetrics(int brokerId) {
    Map<String, Object> beans = new LinkedHashMap<>();
    beans.put("CopyCount", copies);
    beans.put("CopyBytes", copyBytes);
    beans.put("CopyRecords", copyRecords);
    beans.put("CopyErrors", copyErrors);
    beans.put("CommitAttempts", commitAttempts);
    beans.put("CopyLatency", copyLatency);
    beans.put("FetchCount", fetches);
    beans.put("FetchBytes", fetchBytes);
    beans.put("FetchErrors", fetchErrors);
    beans.put("FetchLatency", fetchLatency);
    beans.put("IndexFetchCount", indexFetches);
    beans.put("DeleteCount", deletes);
    beans.put("DeleteErrors", deleteErrors);
    beans.put("DeleteLatency", deleteLatency);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (Map.Entry<String, Object> e : beans.entrySet()) {
      try {
        ObjectName name = objectName(brokerId, e.getKey());
        try {
          server.registerMBean(e.getValue(), name);
        } catch (InstanceAlreadyExistsException exists) {
          // a previous instance in this JVM was not closed (a broker restarted in-process): replace
          // it
          server.unregisterMBean(name);
          server.registerMBean(e.getValue(), name);
        }
        registered.add(name);
      } catch (Exception ex) {
        LOG.warn("Could not register metric {}: {}", e.getKey(), ex.toString());
      }
    }
  }

  public static ObjectName objectName(int brokerId, String name)
      throws javax.management.MalformedObjectNameException {
    String broker = brokerId >= 0 ? ",broker=" + brokerId : "";
    return new ObjectName(DOMAIN + ":type=" + TYPE + broker + ",name=" + name);
  }

  @Override
  public void close() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : registered) {
      try {
        server.unregisterMBean(name);
      } catch (Exception ignored) {
        // already gone
      }
    }
    registered.clear();
  }
}
