package io.floe.rsm.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.fetch.ReencodedSegmentCache;
import io.floe.maintenance.SnapshotExpiry;
import io.floe.rows.PayloadCounts;
import io.floe.tier.TieredSegments.CopyResult;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Each intent method moves the JMX attributes the broker exposes. */
class FloeRsmMetricsTest {
  private static final int BROKER = 91;
  private final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();

  private Object attribute(String name, String attribute) throws Exception {
    return jmx.getAttribute(FloeRsmMetrics.objectName(BROKER, name), attribute);
  }

  @Test
  void aCopyCountsItsBytesRecordsAttemptsAndLatency() throws Exception {
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.recordCopy(
          "payments",
          new CopyResult(
              "db.payments", 1, 300, 2, 4096, 1024, 80, 2, 0, new PayloadCounts(290, 4, 6)),
          3_900_000);
      metrics.recordCopy(
          "payments",
          new CopyResult("db.payments", 2, 100, 0, 1000, 500, 80, 1, 1, PayloadCounts.NONE),
          6_000_000);
      metrics.recordCopyError();

      assertThat(attribute("CopyCount", "Count")).isEqualTo(2L);
      assertThat(attribute("CopyBytes", "Count")).isEqualTo(5096L);
      assertThat(attribute("CopyRecords", "Count")).isEqualTo(400L);
      assertThat(attribute("CommitAttempts", "Count")).isEqualTo(3L);
      assertThat(attribute("CopyErrors", "Count")).isEqualTo(1L);
      assertThat(attribute("CopyLatency", "Count")).isEqualTo(2L);
      assertThat(attribute("CopyLatency", "MaxMs")).isEqualTo(6L);
      assertThat(attribute("CopyLatency", "MeanMs")).isEqualTo(4.5);
      assertThat(attribute("CopyOverlaps", "Count"))
          .as("copies that overlapped another replica's copy in part")
          .isEqualTo(1L);
      assertThat(attribute("TypedPayloads", "Count")).isEqualTo(290L);
      assertThat(attribute("InexactPayloads", "Count")).isEqualTo(4L);
      assertThat(attribute("UndecodablePayloads", "Count")).isEqualTo(6L);
      assertThat(
              jmx.getAttribute(
                  TopicPayloadMetrics.objectName(BROKER, "payments", "InexactPayloads"), "Count"))
          .as("per topic too")
          .isEqualTo(4L);
    }
    assertThat(
            jmx.isRegistered(TopicPayloadMetrics.objectName(BROKER, "payments", "TypedPayloads")))
        .as("unregistered on close")
        .isFalse();
  }

  @Test
  void fetchesIndexFetchesAndDeletes() throws Exception {
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.recordFetch(2_000_000);
      metrics.recordFetchBytes(100);
      metrics.recordFetchBytes(23);
      metrics.recordFetchError();
      metrics.recordIndexFetch();
      metrics.recordIndexFetch();
      metrics.recordDelete(1_000_000);
      metrics.recordDeleteError();

      assertThat(attribute("FetchCount", "Count")).isEqualTo(1L);
      assertThat(attribute("FetchLatency", "Count")).isEqualTo(1L);
      assertThat(attribute("FetchLatency", "MaxMs")).isEqualTo(2L);
      assertThat(attribute("FetchBytes", "Count")).isEqualTo(123L);
      assertThat(attribute("FetchErrors", "Count")).isEqualTo(1L);
      assertThat(attribute("IndexFetchCount", "Count")).isEqualTo(2L);
      assertThat(attribute("DeleteCount", "Count")).isEqualTo(1L);
      assertThat(attribute("DeleteLatency", "Count")).isEqualTo(1L);
      assertThat(attribute("DeleteErrors", "Count")).isEqualTo(1L);
      assertThat(attribute("CopyLatency", "MeanMs")).isEqualTo(0.0);
    }
  }

  @Test
  void theIdleFetchReadersAreCountedWhenJmxAsks() throws Exception {
    long[] parked = {0};
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.watchIdleReaders(() -> parked[0]);
      assertThat(attribute("FetchIdleReaders", "Count")).isEqualTo(0L);
      parked[0] = 5;
      assertThat(attribute("FetchIdleReaders", "Count")).isEqualTo(5L);
    }
    assertThat(jmx.isRegistered(FloeRsmMetrics.objectName(BROKER, "FetchIdleReaders")))
        .as("unregistered on close")
        .isFalse();
  }

  @Test
  void theFetchCacheFiguresAreReadWhenJmxAsks() throws Exception {
    ReencodedSegmentCache.Stats[] now = {new ReencodedSegmentCache.Stats(0, 0, 0, 0, 0)};
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.watchFetchCache(() -> now[0]);
      assertThat(attribute("FetchCacheHits", "Count")).isEqualTo(0L);
      now[0] = new ReencodedSegmentCache.Stats(7, 3, 2, 4096, 1);
      assertThat(attribute("FetchCacheHits", "Count")).isEqualTo(7L);
      assertThat(attribute("FetchCacheMisses", "Count")).isEqualTo(3L);
      assertThat(attribute("FetchCacheSegments", "Count")).isEqualTo(2L);
      assertThat(attribute("FetchCacheBytes", "Count")).isEqualTo(4096L);
      assertThat(attribute("FetchCacheEvictions", "Count")).isEqualTo(1L);
    }
    assertThat(jmx.isRegistered(FloeRsmMetrics.objectName(BROKER, "FetchCacheHits")))
        .as("unregistered on close")
        .isFalse();
  }

  @Test
  void callsTimeoutsAndCancellations() throws Exception {
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.recordCall(3_000_000_000L);
      metrics.recordCall(1_000_000);
      metrics.recordTimeout();
      metrics.recordCopyCancelled();

      assertThat(attribute("CallLatency", "Count")).isEqualTo(2L);
      assertThat(attribute("CallLatency", "MaxMs")).as("the longest wait").isEqualTo(3_000L);
      assertThat(attribute("OperationTimeouts", "Count")).isEqualTo(1L);
      assertThat(attribute("CopyCancellations", "Count")).isEqualTo(1L);
      assertThat(attribute("CopyErrors", "Count")).as("a cancellation is no error").isEqualTo(0L);
    }
  }

  @Test
  void snapshotExpiries() throws Exception {
    try (FloeRsmMetrics metrics = new FloeRsmMetrics(BROKER)) {
      metrics.recordExpiry(new SnapshotExpiry.Outcome("floe.kafka.t", 3, 7, 2));
      metrics.recordExpiry(SnapshotExpiry.Outcome.nothing("floe.kafka.u"));
      metrics.recordExpiryError();

      assertThat(attribute("ExpiredSnapshots", "Count")).isEqualTo(3L);
      assertThat(attribute("ExpiryDeletedFiles", "Count")).isEqualTo(7L);
      assertThat(attribute("ExpiryKeptFiles", "Count")).isEqualTo(2L);
      assertThat(attribute("ExpiryErrors", "Count")).isEqualTo(1L);
    }
  }

  @Test
  void aNewInstanceReplacesAnUnclosedOneAndCloseUnregisters() throws Exception {
    FloeRsmMetrics first = new FloeRsmMetrics(BROKER);
    first.recordDelete(0);
    try (FloeRsmMetrics second = new FloeRsmMetrics(BROKER)) {
      assertThat(attribute("DeleteCount", "Count")).isEqualTo(0L);
    }
    assertThat(jmx.isRegistered(FloeRsmMetrics.objectName(BROKER, "DeleteCount"))).isFalse();
    first.close();
  }

  @Test
  void namesCarryTheBrokerIdWhenKnown() throws Exception {
    assertThat(FloeRsmMetrics.objectName(7, "CopyErrors"))
        .isEqualTo(
            new ObjectName("kafka.server:type=FloeRemoteStorageManager,broker=7,name=CopyErrors"));
    assertThat(FloeRsmMetrics.objectName(-1, "CopyErrors"))
        .isEqualTo(new ObjectName("kafka.server:type=FloeRemoteStorageManager,name=CopyErrors"));
  }
}
