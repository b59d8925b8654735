package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.layout.TopicTableOptions;
import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy whose commit waits on a locked catalog (another connection holds SQLite's exclusive lock;
 * the plugin's connections would wait 30 s for it): the broker cancelling the copy (interrupting
 * its thread, as Kafka does when leadership moves or the broker stops) gets a cancellation at once,
 * and a copy past {@code operation.timeout.ms} fails at that bound. Either way Kafka's delete of
 * the segment waits for the copy's work to end, and the table holds nothing of it afterwards.
 */
class CopyCancellationTest {
  private static final long MARGIN_MS = 1_500;

  @TempDir Path dir;

  private final TopicIdPartition partition =
      new TopicIdPartition(Uuid.randomUuid(), new TopicPartition("orders", 0));

  @Test
  void aCopyTheBrokerInterruptsIsCancelledNotFailed() throws Exception {
    Map<String, String> catalog = TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL);
    try (FloeRemoteStorageManager rsm = configured(catalog, 8, 60_000)) {
      Segment first = segment("first", 0, 30);
      rsm.copyLogSegmentData(first.metadata(), first.data());
      Segment second = segment("second", 30, 20);

      AtomicReference<Throwable> thrown = new AtomicReference<>();
      AtomicBoolean interruptKept = new AtomicBoolean();
      try (CatalogLock lock = CatalogLock.take(catalog)) {
        Thread copier =
            new Thread(
                () -> {
                  thrown.set(
                      catchThrowable(
                          () -> rsm.copyLogSegmentData(second.metadata(), second.data())));
                  interruptKept.set(Thread.currentThread().isInterrupted());
                });
        copier.start();
        awaitWorkerWaitingOnTheCatalog(8);
        long start = System.nanoTime();
        copier.interrupt();
        copier.join(10_000);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
            .as("the cancelled call returns at once")
            .isLessThan(MARGIN_MS);
      }
      assertThat(thrown.get())
          .isInstanceOf(RetriableRemoteStorageException.class)
          .hasMessageContaining("orders-0 (offsets 30..49) cancelled by the broker")
          .hasMessageContaining("committing the segment");
      assertThat(interruptKept).as("the broker's thread is still interrupted").isTrue();
      assertThat(metric(8, "CopyCancellations", "Count")).isEqualTo(1);
      assertThat(metric(8, "CopyErrors", "Count")).as("not a copy error").isZero();
      assertThat(metric(8, "CallLatency", "Count")).isEqualTo(2);

      // Kafka deletes the segment it gave up on: after the copy's work ended, whatever it did.
      rsm.deleteLogSegmentData(second.metadata());
      assertTableHoldsOnly(catalog, 30);
    }
  }

  @Test
  void aCopyPastItsBoundFailsNamingTheKeyAndWhatItWaitedOn() throws Exception {
    Map<String, String> catalog = TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL);
    Segment first = segment("first", 0, 25);
    // The table is created without the tight bound: a first copy on a loaded machine may take
    // longer than a second.
    try (FloeRemoteStorageManager setup = configured(catalog, 10, 60_000)) {
      setup.copyLogSegmentData(first.metadata(), first.data());
    }
    try (FloeRemoteStorageManager rsm = configured(catalog, 9, 1_000)) {
      Segment second = segment("second", 25, 15);
      Throwable thrown;
      long ms;
      try (CatalogLock lock = CatalogLock.take(catalog)) {
        long start = System.nanoTime();
        thrown = catchThrowable(() -> rsm.copyLogSegmentData(second.metadata(), second.data()));
        ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      }
      assertThat(thrown)
          .isInstanceOf(RetriableRemoteStorageException.class)
          .hasMessageContaining("did not finish within operation.timeout.ms=1000 ms")
          // this instance has yet to load the table: it waits there, or later in the commit
          .hasMessageMatching(".* while (loading the topic's table|committing the segment) .*")
          .hasMessageContaining("waiting on the catalog's database (JDBC)");
      assertThat(ms).isBetween(1_000L, 1_000L + MARGIN_MS);
      assertThat(metric(9, "CallLatency", "Count")).isEqualTo(1);
      assertThat(metric(9, "OperationTimeouts", "Count")).isEqualTo(1);
      assertThat(metric(9, "CopyErrors", "Count")).isEqualTo(1);

      rsm.deleteLogSegmentData(second.metadata());
      assertTableHoldsOnly(catalog, 25);
      // Kafka copies the segment again under a new id: each record once.
      Segment retried = segment("retried", 25, 15);
      rsm.copyLogSegmentData(retried.metadata(), retried.data());
      assertTableHoldsOnly(catalog, 40);
    }
  }

  private static FloeRemoteStorageManager configured(
      Map<String, String> catalog, int brokerId, long operationTimeoutMs) {
    Map<String, Object> props = new HashMap<>();
    catalog.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("iceberg.type", "jdbc");
    // sqlite-jdbc's busy timeout: how long a statement waits for another connection's lock
    props.put("iceberg.jdbc.busy_timeout", "30000");
    props.put("operation.timeout.ms", Long.toString(operationTimeoutMs));
    props.put("broker.id", Integer.toString(brokerId));
    FloeRemoteStorageManager rsm = new FloeRemoteStorageManager();
    rsm.configure(props);
    return rsm;
  }

  /** Another connection holding SQLite's exclusive lock on the catalog: nobody reads or writes. */
  private record CatalogLock(Connection connection) implements AutoCloseable {
    static CatalogLock take(Map<String, String> catalog) throws Exception {
      Connection c = DriverManager.getConnection(catalog.get("uri"));
      try (Statement s = c.createStatement()) {
        s.execute("BEGIN EXCLUSIVE");
      }
      return new CatalogLock(c);
    }

    @Override
    public void close() throws Exception {
      try (connection;
          Statement s = connection.createStatement()) {
        s.execute("ROLLBACK");
      }
    }
  }

  private static void awaitWorkerWaitingOnTheCatalog(int brokerId) {
    String prefix = "floe-rsm-" + brokerId + "-worker-";
    await("a worker of broker " + brokerId + " waits on the catalog's lock")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                Thread.getAllStackTraces().entrySet().stream()
                    .anyMatch(
                        e ->
                            e.getKey().getName().startsWith(prefix)
                                && Arrays.stream(e.getValue())
                                    .anyMatch(f -> f.getClassName().startsWith("org.sqlite"))));
  }

  /**
   * The table holds offsets 0..count-1 once each, and the warehouse holds no data file that no
   * snapshot of the table references (a copy cut short left nothing behind).
   */
  private void assertTableHoldsOnly(Map<String, String> catalogProps, long count) throws Exception {
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
      Table table =
          new TopicTables(catalog, TopicTableOptions.builder().build())
              .find(partition.topic(), partition.topicId().toString());
      Set<Long> offsets = new HashSet<>();
      long rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record r : records) {
          offsets.add((Long) ((Record) r.getField("kafka")).getField("offset"));
          rows++;
        }
      }
      assertThat(rows).as("rows").isEqualTo(count);
      assertThat(offsets).hasSize((int) count).allMatch(o -> o >= 0 && o < count);
      // A copy that could not be interrupted may still commit before Kafka deletes its segment:
      // the delete takes its file out of the current snapshot, and the file stays for the older
      // snapshots until they expire. What must never be is a file no snapshot references.
      Set<String> referenced = new HashSet<>();
      for (Snapshot snapshot : table.snapshots()) {
        try (CloseableIterable<FileScanTask> tasks =
            table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
          for (FileScanTask t : tasks) {
            referenced.add(Path.of(java.net.URI.create(t.file().location())).toString());
            t.deletes()
                .forEach(
                    d -> referenced.add(Path.of(java.net.URI.create(d.location())).toString()));
          }
        }
      }
      Path data = Path.of(java.net.URI.create(table.location())).resolve("data");
      try (Stream<Path> files = Files.walk(data)) {
        assertThat(
                files
                    .filter(p -> p.toString().endsWith(".parquet"))
                    .map(Path::toString)
                    .collect(Collectors.toSet()))
            .as("data and delete files in the warehouse")
            .isEqualTo(referenced);
      }
    }
  }

  private static long metric(int brokerId, String name, String attribute) throws Exception {
    return (Long)
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(FloeRsmMetrics.objectName(brokerId, name), attribute);
  }

  private record Segment(RemoteLogSegmentMetadata metadata, LogSegmentData data) {}

  private Segment segment(String name, long base, int records) throws Exception {
    Path segDir = Files.createDirectories(dir.resolve("segments").resolve(name));
    Path log =
        SegmentGenerator.seeded(base)
            .startOffset(base)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, records, 50)
            .writeTo(segDir.resolve(String.format("%020d.log", base)));
    Path empty = Files.write(segDir.resolve("empty"), new byte[0]);
    LogSegmentData data =
        new LogSegmentData(
            log, empty, empty, Optional.empty(), empty, ByteBuffer.wrap("0\n1\n0 0\n".getBytes()));
    RemoteLogSegmentMetadata metadata =
        new RemoteLogSegmentMetadata(
            new RemoteLogSegmentId(partition, Uuid.randomUuid()),
            base,
            base + records - 1,
            System.currentTimeMillis(),
            0,
            System.currentTimeMillis(),
            (int) Files.size(log),
            Map.of(0, base));
    return new Segment(metadata, data);
  }
}
