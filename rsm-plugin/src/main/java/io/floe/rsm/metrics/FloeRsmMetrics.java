package io.floe.rsm.metrics;

import io.floe.fetch.ReencodedSegmentCache;
import io.floe.maintenance.SnapshotExpiry;
import io.floe.tier.TieredSegments.CopyResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's metrics, one JMX MBean each, named {@code
 * kafka.server:type=FloeRemoteStorageManager,name=<Name>} (plus {@code broker=<id>} when the broker
 * id is known, so several brokers in one JVM do not collide). Counters expose {@code Count};
 * latencies (copy, fetch until its stream is ready, delete, and every call as the broker's thread
 * waited for it) expose {@code Count}, {@code MeanMs} and {@code MaxMs}. The plugin records what
 * happened through the {@code record*} methods.
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

  /** A JMX counter. */
  public static final class Counter implements CounterMBean {
    private final LongAdder count = new LongAdder();

    void add(long n) {
      count.add(n);
    }

    void increment() {
      count.increment();
    }

    @Override
    public long getCount() {
      return count.sum();
    }
  }

  /** A JMX latency. */
  public static final class Latency implements LatencyMBean {
    private final LongAdder count = new LongAdder();
    private final LongAdder totalMs = new LongAdder();
    private final AtomicLong maxMs = new AtomicLong();

    void record(long nanos) {
      long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
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

  private final Counter copies = new Counter();
  private final Counter copyBytes = new Counter();
  private final Counter copyRecords = new Counter();
  private final Counter copyErrors = new Counter();
  private final Counter commitAttempts = new Counter();
  private final Latency copyLatency = new Latency();
  private final Counter copyOverlaps = new Counter();
  private final Counter fetches = new Counter();
  private final Counter fetchBytes = new Counter();
  private final Counter fetchErrors = new Counter();
  private final Latency fetchLatency = new Latency();
  private final Counter indexFetches = new Counter();
  private final Counter deletes = new Counter();
  private final Counter deleteErrors = new Counter();
  private final Latency deleteLatency = new Latency();
  private final Latency callLatency = new Latency();
  private final Counter timeouts = new Counter();
  private final Counter copyCancellations = new Counter();
  private final Counter expiredSnapshots = new Counter();
  private final Counter expiryDeletedFiles = new Counter();
  private final Counter expiryKeptFiles = new Counter();
  private final Counter expiryErrors = new Counter();
  private final Counter typedPayloads = new Counter();
  private final Counter inexactPayloads = new Counter();
  private final Counter undecodablePayloads = new Counter();

  private final List<ObjectName> registered = new ArrayList<>();
  private final int brokerId;
  private final TopicPayloadMetrics topicPayloads;

  /** Registers the MBeans; {@code brokerId} below 0 leaves the broker key out of the names. */
  public FloeRsmMetrics(int brokerId) {
    this.brokerId = brokerId;
    this.topicPayloads = new TopicPayloadMetrics(brokerId, registered);
    Map<String, Object> beans = new LinkedHashMap<>();
    beans.put("CopyCount", copies);
    beans.put("CopyBytes", copyBytes);
    beans.put("CopyRecords", copyRecords);
    beans.put("CopyErrors", copyErrors);
    beans.put("CommitAttempts", commitAttempts);
    beans.put("CopyLatency", copyLatency);
    beans.put("CopyOverlaps", copyOverlaps);
    beans.put("FetchCount", fetches);
    beans.put("FetchBytes", fetchBytes);
    beans.put("FetchErrors", fetchErrors);
    beans.put("FetchLatency", fetchLatency);
    beans.put("IndexFetchCount", indexFetches);
    beans.put("DeleteCount", deletes);
    beans.put("DeleteErrors", deleteErrors);
    beans.put("DeleteLatency", deleteLatency);
    beans.put("CallLatency", callLatency);
    beans.put("OperationTimeouts", timeouts);
    beans.put("CopyCancellations", copyCancellations);
    beans.put("ExpiredSnapshots", expiredSnapshots);
    beans.put("ExpiryDeletedFiles", expiryDeletedFiles);
    beans.put("ExpiryKeptFiles", expiryKeptFiles);
    beans.put("ExpiryErrors", expiryErrors);
    beans.put("TypedPayloads", typedPayloads);
    beans.put("InexactPayloads", inexactPayloads);
    beans.put("UndecodablePayloads", undecodablePayloads);
    register(beans);
  }

  /**
   * Adds the fetch cache's figures (hits, misses, segments and bytes held, evictions) as counters
   * read from {@code stats} when JMX asks.
   */
  public void watchFetchCache(Supplier<ReencodedSegmentCache.Stats> stats) {
    Map<String, Object> beans = new LinkedHashMap<>();
    beans.put("FetchCacheHits", counter(() -> stats.get().hits()));
    beans.put("FetchCacheMisses", counter(() -> stats.get().misses()));
    beans.put("FetchCacheSegments", counter(() -> stats.get().segments()));
    beans.put("FetchCacheBytes", counter(() -> stats.get().bytes()));
    beans.put("FetchCacheEvictions", counter(() -> stats.get().evictions()));
    register(beans);
  }

  /**
   * Adds {@code FetchIdleReaders}: the readers of finished fetches kept for fetches that continue
   * them (at most 16, each holding a row group's worth of heap), read from {@code parked} when JMX
   * asks.
   */
  public void watchIdleReaders(LongSupplier parked) {
    register(Map.of("FetchIdleReaders", counter(parked)));
  }

  private static Object counter(LongSupplier value) {
    try {
      return new StandardMBean((CounterMBean) value::getAsLong, CounterMBean.class);
    } catch (NotCompliantMBeanException e) {
      throw new IllegalStateException(e);
    }
  }

  private void register(Map<String, Object> beans) {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (Map.Entry<String, Object> e : beans.entrySet()) {
      try {
        ObjectName name = objectName(brokerId, e.getKey());
        try {
          server.registerMBean(e.getValue(), name);
        } catch (InstanceAlreadyExistsException exists) {
          // a previous instance in this JVM was not closed (a broker restarted in-process)
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
      throws MalformedObjectNameException {
    String broker = brokerId >= 0 ? ",broker=" + brokerId : "";
    return new ObjectName(DOMAIN + ":type=" + TYPE + broker + ",name=" + name);
  }

  /** A segment of {@code topic} was copied and committed in {@code nanos}. */
  public void recordCopy(String topic, CopyResult result, long nanos) {
    topicPayloads.record(topic, result.payloads());
    copies.increment();
    copyBytes.add(result.segmentBytes());
    copyRecords.add(result.records());
    commitAttempts.add(result.commitAttempts());
    copyLatency.record(nanos);
    typedPayloads.add(result.payloads().ok());
    inexactPayloads.add(result.payloads().inexact());
    undecodablePayloads.add(result.payloads().undecodable());
    if (result.overlappedDataFiles() > 0) {
      copyOverlaps.increment(); // another replica's copy overlapped in part: a leader changed
    }
  }

  public void recordCopyError() {
    copyErrors.increment();
  }

  /**
   * A fetch's stream was ready (segment opened, reader positioned) after {@code nanos}; its bytes
   * then flow as the broker reads, counted by {@link #recordFetchBytes}.
   */
  public void recordFetch(long nanos) {
    fetches.increment();
    fetchLatency.record(nanos);
  }

  /** The broker read {@code bytes} more of a fetched segment. */
  public void recordFetchBytes(long bytes) {
    fetchBytes.add(bytes);
  }

  /** A segment or index fetch failed (an index the segment does not have is no failure). */
  public void recordFetchError() {
    fetchErrors.increment();
  }

  /** An index of a stored segment was looked up. */
  public void recordIndexFetch() {
    indexFetches.increment();
  }

  /** A segment was deleted in {@code nanos}. */
  public void recordDelete(long nanos) {
    deletes.increment();
    deleteLatency.record(nanos);
  }

  public void recordDeleteError() {
    deleteErrors.increment();
  }

  /**
   * A call of the broker (copy, fetch, index fetch, delete; failed ones too) held the broker's
   * thread for {@code nanos}: the longest is the longest a broker thread waited on the plugin.
   */
  public void recordCall(long nanos) {
    callLatency.record(nanos);
  }

  /** A call ran past its bound (operation.timeout.ms, copy.timeout.ms) and was given up. */
  public void recordTimeout() {
    timeouts.increment();
  }

  /** The broker cancelled a copy (its thread was interrupted): not a copy error. */
  public void recordCopyCancelled() {
    copyCancellations.increment();
  }

  /** One table's snapshot expiry ran (and may have expired nothing). */
  public void recordExpiry(SnapshotExpiry.Outcome outcome) {
    expiredSnapshots.add(outcome.expiredSnapshots());
    expiryDeletedFiles.add(outcome.deletedFiles());
    expiryKeptFiles.add(outcome.keptFiles()); // unreferenced, but a live segment still reads them
  }

  /** One table's snapshot expiry failed (it is tried again at the next interval). */
  public void recordExpiryError() {
    expiryErrors.increment();
  }

  @Override
  public void close() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    List<ObjectName> names;
    synchronized (registered) {
      names = List.copyOf(registered);
    }
    for (ObjectName name : names) {
      try {
        server.unregisterMBean(name);
      } catch (Exception ignored) {
        // already gone
      }
    }
    synchronized (registered) {
      registered.clear();
    }
  }
}
