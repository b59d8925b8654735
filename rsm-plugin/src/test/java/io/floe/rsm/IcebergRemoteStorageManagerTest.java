package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.TimestampType;
import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TestCatalogs;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RSM contract against a real JdbcCatalog on local disk, with segments written by Kafka's own
 * FileRecords, through the class a broker loads. Metrics are read as the broker exposes them, from
 * JMX.
 */
class IcebergRemoteStorageManagerTest {
  @TempDir Path dir;

  private FloeRemoteStorageManager rsm;
  private final TopicIdPartition partition =
      new TopicIdPartition(Uuid.randomUuid(), new TopicPartition("payments", 2));

  @BeforeEach
  void configure() {
    rsm = new FloeRemoteStorageManager();
    rsm.configure(config(TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL)));
  }

  @AfterEach
  void close() {
    rsm.close();
  }

  private static Map<String, Object> config(Map<String, String> catalog) {
    Map<String, Object> props = new HashMap<>();
    catalog.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("iceberg.type", "jdbc");
    props.put("broker.id", "7");
    return props;
  }

  private record Segment(
      RemoteLogSegmentMetadata metadata,
      LogSegmentData data,
      Path log,
      byte[] txnIndex,
      byte[] producerSnapshot,
      byte[] epochs) {}

  private Segment segment(String name, SegmentGenerator generator, boolean withTxnIndex)
      throws IOException {
    return segment(name, 0, generator, withTxnIndex);
  }

  private Segment segment(String name, long base, SegmentGenerator generator, boolean withTxnIndex)
      throws IOException {
    Path segDir = Files.createDirectories(dir.resolve(name));
    Path log = generator.writeTo(segDir.resolve(String.format("%020d.log", base)));
    List<long[]> aborted = generator.abortedTransactions();
    ByteBuffer txn = ByteBuffer.allocate(34 * aborted.size());
    for (long[] a : aborted) {
      txn.putShort((short) 0).putLong(a[0]).putLong(a[1]).putLong(a[2]).putLong(a[2]);
    }
    Path txnFile = Files.write(segDir.resolve(String.format("%020d.txnindex", base)), txn.array());
    Path timeIndex =
        Files.write(segDir.resolve(String.format("%020d.timeindex", base)), new byte[0]);
    Path offsetIndex = Files.write(segDir.resolve(String.format("%020d.index", base)), new byte[0]);
    byte[] snapshot = "producer-snapshot-bytes".getBytes(StandardCharsets.UTF_8);
    Path snapshotFile =
        Files.write(segDir.resolve(String.format("%020d.snapshot", base)), snapshot);
    byte[] epochs = "0\n1\n0 0\n".getBytes(StandardCharsets.UTF_8);
    LogSegmentData data =
        new LogSegmentData(
            log,
            offsetIndex,
            timeIndex,
            withTxnIndex ? Optional.of(txnFile) : Optional.empty(),
            snapshotFile,
            ByteBuffer.wrap(epochs));
    long end = generator.nextOffset() - 1;
    RemoteLogSegmentMetadata metadata =
        new RemoteLogSegmentMetadata(
            new RemoteLogSegmentId(partition, Uuid.randomUuid()),
            base,
            end,
            System.currentTimeMillis(),
            7,
            System.currentTimeMillis(),
            (int) Files.size(log),
            Map.of(0, base));
    return new Segment(metadata, data, log, txn.array(), snapshot, epochs);
  }

  /** A counter of the configured instance (broker 7), as JMX shows it. */
  private static long count(String metric) throws Exception {
    return (Long)
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(FloeRsmMetrics.objectName(7, metric), "Count");
  }

  private static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  @Test
  void copiesAndServesASegmentAndItsIndexes() throws Exception {
    Segment s = segment("mix", SegmentGenerator.seeded(42).randomMix(300), true);
    assertThat(rsm.copyLogSegmentData(s.metadata(), s.data())).isEmpty();

    byte[] full = readAll(rsm.fetchLogSegment(s.metadata(), 0));
    List<RecordBatch> expected = Batches.read(s.log());
    List<RecordBatch> actual = Batches.readComplete(full);
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      Batches.assertSameBatch(expected.get(i), actual.get(i));
    }

    // Positions are lower bounds of the stream's (a compressed batch counts its header only); a
    // bounded fetch serves the whole batches that start up to endPosition (inclusive)
    List<Long> positions = Batches.lowerBoundPositions(expected);
    int third = positions.get(2).intValue();
    assertThat(third).isPositive();
    assertThat(readAll(rsm.fetchLogSegment(s.metadata(), 0, third)))
        .isEqualTo(Arrays.copyOf(full, servedStart(full, 3)));
    assertThat(readAll(rsm.fetchLogSegment(s.metadata(), 0, third - 1)))
        .isEqualTo(Arrays.copyOf(full, servedStart(full, 2)));
    assertThat(readAll(rsm.fetchLogSegment(s.metadata(), 1, third)))
        .isEqualTo(Arrays.copyOfRange(full, servedStart(full, 1), servedStart(full, 3)));

    // Every position of the served offset index is a batch's, and starts that batch
    ByteBuffer index = ByteBuffer.wrap(readAll(rsm.fetchIndex(s.metadata(), IndexType.OFFSET)));
    assertThat(index.remaining()).isPositive().isEqualTo(index.remaining() / 8 * 8);
    while (index.hasRemaining()) {
      index.getInt(); // relative offset
      int position = index.getInt();
      int batch = positions.indexOf((long) position);
      assertThat(batch).as("position %d starts a batch", position).isNotNegative();
      byte[] tail = readAll(rsm.fetchLogSegment(s.metadata(), position));
      assertThat(tail).isEqualTo(Arrays.copyOfRange(full, servedStart(full, batch), full.length));
    }

    assertThat(readAll(rsm.fetchIndex(s.metadata(), IndexType.TIMESTAMP))).isNotNull();
    assertThat(readAll(rsm.fetchIndex(s.metadata(), IndexType.TRANSACTION)))
        .isEqualTo(s.txnIndex());
    assertThat(readAll(rsm.fetchIndex(s.metadata(), IndexType.PRODUCER_SNAPSHOT)))
        .isEqualTo(s.producerSnapshot());
    assertThat(readAll(rsm.fetchIndex(s.metadata(), IndexType.LEADER_EPOCH))).isEqualTo(s.epochs());

    assertThat(count("CopyCount")).isEqualTo(1);
    assertThat(count("FetchBytes")).isGreaterThanOrEqualTo(full.length + 100L);
    // The broker's JMX names: kafka.server:type=FloeRemoteStorageManager,broker=7,name=...
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    assertThat(jmx.getAttribute(FloeRsmMetrics.objectName(7, "CopyCount"), "Count")).isEqualTo(1L);
    assertThat((Long) jmx.getAttribute(FloeRsmMetrics.objectName(7, "FetchLatency"), "Count"))
        .isEqualTo(count("FetchCount"))
        .isGreaterThanOrEqualTo(3L);
    assertThat((Long) jmx.getAttribute(FloeRsmMetrics.objectName(7, "CopyLatency"), "MaxMs"))
        .isNotNegative();

    rsm.deleteLogSegmentData(s.metadata());
    assertThat(jmx.getAttribute(FloeRsmMetrics.objectName(7, "DeleteLatency"), "Count"))
        .isEqualTo(1L);
  }

  @Test
  void aSegmentWithoutTransactionIndexHasNone() throws Exception {
    Segment s =
        segment(
            "plain",
            SegmentGenerator.seeded(1)
                .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 20, 100)
                .batch(Compression.NONE, TimestampType.LOG_APPEND_TIME, 5, 10),
            false);
    rsm.copyLogSegmentData(s.metadata(), s.data());
    assertThatThrownBy(() -> rsm.fetchIndex(s.metadata(), IndexType.TRANSACTION))
        .isInstanceOf(RemoteResourceNotFoundException.class);
    // field for field: the zstd batch is re-compressed (its bytes differ from the producer's), the
    // other is identical
    Batches.assertSameBatches(
        Batches.read(s.log()), Batches.readComplete(readAll(rsm.fetchLogSegment(s.metadata(), 0))));
  }

  @Test
  void unknownAndDeletedSegmentsAreNotFound() throws Exception {
    Segment s =
        segment(
            "gone",
            SegmentGenerator.seeded(3).batch(Compression.LZ4, TimestampType.CREATE_TIME, 10, 50),
            true);
    assertThatThrownBy(() -> rsm.fetchLogSegment(s.metadata(), 0))
        .isInstanceOf(RemoteResourceNotFoundException.class);
    assertThatThrownBy(() -> rsm.fetchIndex(s.metadata(), IndexType.OFFSET))
        .isInstanceOf(RemoteResourceNotFoundException.class);
    rsm.deleteLogSegmentData(s.metadata()); // nothing stored yet: fine

    rsm.copyLogSegmentData(s.metadata(), s.data());
    assertThat(readAll(rsm.fetchLogSegment(s.metadata(), 0))).isNotEmpty(); // now cached as open
    rsm.deleteLogSegmentData(s.metadata());
    rsm.deleteLogSegmentData(s.metadata());
    assertThatThrownBy(() -> rsm.fetchLogSegment(s.metadata(), 0))
        .isInstanceOf(RemoteResourceNotFoundException.class);
    assertThat(count("DeleteCount")).isEqualTo(3);
  }

  @Test
  void retentionModeKeepLeavesTheRowsInTheTable() throws Exception {
    Map<String, String> catalog =
        TestCatalogs.properties(dir.resolve("keep"), TestCatalogs.Storage.LOCAL);
    Files.createDirectories(dir.resolve("keep"));
    Map<String, Object> props = config(catalog);
    props.put("retention.mode", "keep");
    Map<String, Object> deleting = config(catalog);
    try (FloeRemoteStorageManager keep = new FloeRemoteStorageManager();
        FloeRemoteStorageManager delete = new FloeRemoteStorageManager()) {
      keep.configure(props);
      delete.configure(deleting);
      Segment kept =
          segment(
              "kept",
              SegmentGenerator.seeded(21)
                  .batch(Compression.SNAPPY, TimestampType.CREATE_TIME, 30, 40),
              true);
      keep.copyLogSegmentData(kept.metadata(), kept.data());
      keep.deleteLogSegmentData(kept.metadata());
      assertThatThrownBy(() -> keep.fetchLogSegment(kept.metadata(), 0))
          .isInstanceOf(RemoteResourceNotFoundException.class);
      assertThat(rows(catalog)).isEqualTo(30);

      Segment removed =
          segment(
              "removed",
              30,
              SegmentGenerator.seeded(22)
                  .startOffset(30)
                  .batch(Compression.NONE, TimestampType.CREATE_TIME, 12, 40),
              true);
      delete.copyLogSegmentData(removed.metadata(), removed.data());
      assertThat(rows(catalog)).isEqualTo(42);
      delete.deleteLogSegmentData(removed.metadata());
      assertThat(rows(catalog)).isEqualTo(30);
    }
  }

  private long rows(Map<String, String> catalogProps) throws Exception {
    try (org.apache.iceberg.jdbc.JdbcCatalog catalog = new org.apache.iceberg.jdbc.JdbcCatalog()) {
      catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
      org.apache.iceberg.Table table =
          new io.floe.tier.TopicTables(catalog, io.floe.layout.TopicTableOptions.builder().build())
              .find(partition.topic(), partition.topicId().toString());
      long n = 0;
      try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> it =
          org.apache.iceberg.data.IcebergGenerics.read(table).build()) {
        for (org.apache.iceberg.data.Record ignored : it) {
          n++;
        }
      }
      return n;
    }
  }

  @Test
  void aSegmentThatCannotBeRepresentedIsRefusedForGood() throws Exception {
    Segment s =
        segment(
            "legacy",
            SegmentGenerator.seeded(5)
                .batch(Compression.NONE, TimestampType.CREATE_TIME, 3, 10)
                .legacyBatch((byte) 1, Compression.NONE, 3),
            true);
    Throwable thrown = catchThrowable(() -> rsm.copyLogSegmentData(s.metadata(), s.data()));
    assertThat(thrown)
        .isInstanceOf(RemoteStorageException.class)
        .isNotInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageContaining("cannot be tiered");
    assertThatThrownBy(() -> rsm.fetchLogSegment(s.metadata(), 0))
        .isInstanceOf(RemoteResourceNotFoundException.class);
    assertThat(count("CopyErrors")).isEqualTo(1);
  }

  @Test
  void storageFailuresAreRetriable() throws Exception {
    Path notADirectory = Files.write(dir.resolve("file"), new byte[1]);
    Map<String, String> catalog =
        TestCatalogs.properties(dir.resolve("other"), TestCatalogs.Storage.LOCAL);
    Files.createDirectories(dir.resolve("other"));
    catalog.put("warehouse", notADirectory.resolve("warehouse").toUri().toString());
    try (FloeRemoteStorageManager broken = new FloeRemoteStorageManager()) {
      broken.configure(config(catalog));
      Segment s =
          segment(
              "io",
              SegmentGenerator.seeded(9).batch(Compression.GZIP, TimestampType.CREATE_TIME, 5, 20),
              true);
      assertThatThrownBy(() -> broken.copyLogSegmentData(s.metadata(), s.data()))
          .isInstanceOf(RetriableRemoteStorageException.class)
          .hasMessageContaining("payments-2");
    }
  }

  @Test
  void anInterruptedFetchClosesQuietly() throws Exception {
    Segment s = segment("interrupt", SegmentGenerator.seeded(11).randomMix(100), true);
    rsm.copyLogSegmentData(s.metadata(), s.data());
    InputStream in = rsm.fetchLogSegment(s.metadata(), 0);
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> in.read(new byte[16])).isInstanceOf(InterruptedIOException.class);
    } finally {
      Thread.interrupted();
    }
    in.close(); // no exception
    in.close();
    assertThatThrownBy(in::read).isInstanceOf(IOException.class);
  }

  @Test
  void snapshotExpiryRunsOnItsOwnThreadStopsOnCloseAndIsOffAtZero() throws Exception {
    rsm.close();
    Map<String, Object> props = config(TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL));
    props.put("snapshot.expiry.interval.ms", "1000");
    rsm = new FloeRemoteStorageManager();
    rsm.configure(props);
    SegmentGenerator first =
        SegmentGenerator.seeded(21).batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 20);
    Segment one = segment("expiry-a", first, false);
    rsm.copyLogSegmentData(one.metadata(), one.data());
    long base = first.nextOffset();
    Segment second =
        segment(
            "expiry-b",
            base,
            SegmentGenerator.seeded(22)
                .startOffset(base)
                .batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 20),
            false);
    rsm.copyLogSegmentData(second.metadata(), second.data());
    try (JdbcCatalog catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL)) {
      catalog
          .loadTable(TableIdentifier.of("kafka", "payments"))
          .updateProperties()
          .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "0")
          .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1")
          .commit();
    }

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (count("ExpiredSnapshots") < 1) {
      assertThat(System.nanoTime()).as("a snapshot expired within 60 s").isLessThan(deadline);
      Thread.sleep(50);
    }
    assertThat(count("ExpiredSnapshots")).isEqualTo(1);
    assertThat(count("ExpiryErrors")).isZero();
    assertThat(readAll(rsm.fetchLogSegment(one.metadata(), 0)))
        .as("the segment of the expired snapshot is served as before")
        .isEqualTo(Files.readAllBytes(one.log()));
    assertThat(maintenanceThreads()).hasSize(1);
    long closing = System.nanoTime();
    rsm.close();
    assertThat(maintenanceThreads()).isEmpty();
    assertThat(System.nanoTime() - closing).isLessThan(TimeUnit.SECONDS.toNanos(11));

    props.put("snapshot.expiry.interval.ms", "0");
    rsm = new FloeRemoteStorageManager();
    rsm.configure(props);
    assertThat(maintenanceThreads()).isEmpty();
  }

  private static List<Thread> maintenanceThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("floe-table-maintenance-7") && t.isAlive())
        .toList();
  }

  /** Where batch {@code batch} starts in a served stream. */
  private static int servedStart(byte[] stream, int batch) {
    int at = 0;
    for (int i = 0; i < batch; i++) {
      at += 12 + ByteBuffer.wrap(stream).getInt(at + 8);
    }
    return at;
  }
}
