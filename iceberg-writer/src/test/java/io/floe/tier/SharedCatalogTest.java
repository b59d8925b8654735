package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.format.KafkaRecord;
import io.floe.layout.TopicTableOptions;
import io.floe.rows.RowCodec;
import io.floe.testing.Batches;
import io.floe.testing.ReplicaLog;
import io.floe.testing.SharedCatalogs;
import io.floe.testing.SharedCatalogs.Kind;
import io.floe.testing.TableFixture;
import io.floe.testing.WarehouseAudit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three brokers share one catalog (JDBC on a real PostgreSQL server, and Iceberg's REST catalog
 * server), each with its own catalog client and bridge as three broker processes have, and copy
 * into the same topic table at the same time: each leads some partitions, and one partition changes
 * leader, the new leader copying a segment that overlaps the old leader's copy only in part. Every
 * copy commits, the table keeps each offset once with the right records, every segment fetches back
 * exactly, and nothing is left in the warehouse that the table or a sidecar does not reference.
 */
class SharedCatalogTest {
  private static final int BROKERS = 3;
  private static final int LED_PARTITIONS = 6;
  private static final int BATCHES = 40;
  private static final int SEGMENT_BATCHES = 8;

  /** The partition whose leader changes from broker 0 to broker 1. */
  private static final int MOVED_PARTITION = LED_PARTITIONS;

  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private static SharedCatalogs catalogs;

  @TempDir Path dir;

  @BeforeAll
  static void startCatalogs() {
    catalogs = SharedCatalogs.start();
  }

  @AfterAll
  static void stopCatalogs() throws Exception {
    if (catalogs != null) {
      catalogs.close();
    }
  }

  /** One broker: its own catalog client and bridge. */
  private record Broker(int id, Catalog catalog, TieredSegments segments) implements AutoCloseable {
    static Broker start(int id, Kind kind, Namespace namespace) {
      Catalog catalog = catalogs.client(kind);
      TopicTableOptions options = TopicTableOptions.builder().namespace(namespace).build();
      return new Broker(
          id,
          catalog,
          new TieredSegments(new TopicTables(catalog, options), new SegmentCommitter()));
    }

    @Override
    public void close() throws Exception {
      if (catalog instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  /** A segment one broker copied: its key and the log file it copied. */
  private record Copied(
      SegmentKey key, Path log, int broker, int commitAttempts, int overlappedFiles) {}

  /** A segment to copy: batches [fromBatch, toBatch) of a partition's log, by one broker. */
  private record Planned(int broker, int partition, int fromBatch, int toBatch) {}

  @ParameterizedTest
  @EnumSource(Kind.class)
  void threeBrokersCopyIntoOneTableAtOnce(Kind kind) throws Exception {
    String topic = "orders";
    String topicId = "Q2x3cN6tR0m3Q0nS0b6y" + kind.ordinal() + "w";
    Namespace namespace = namespace(kind);
    Map<Integer, ReplicaLog> logs = new HashMap<>();
    Map<Integer, List<Planned>> plans = new HashMap<>();
    for (int p = 0; p <= MOVED_PARTITION; p++) {
      logs.put(p, ReplicaLog.generate(1000L * kind.ordinal() + p, BATCHES, 120, dir));
      List<Planned> plan = new ArrayList<>();
      if (p == MOVED_PARTITION) {
        // Broker 0 leads and tiers [0, 16) and [16, 28); broker 1 takes over, and its segment that
        // holds the first untiered offset starts at batch 22, inside broker 0's last copy.
        plan.add(new Planned(0, p, 0, 16));
        plan.add(new Planned(0, p, 16, 28));
        plan.add(new Planned(1, p, 22, 34));
        plan.add(new Planned(1, p, 34, BATCHES));
      } else {
        for (int b = 0; b < BATCHES; b += SEGMENT_BATCHES) {
          plan.add(new Planned(p % BROKERS, p, b, b + SEGMENT_BATCHES));
        }
      }
      plans.put(p, plan);
    }

    List<Broker> brokers = startBrokers(kind, namespace);
    try {
      long started = System.nanoTime();
      List<Copied> copied = copyAll(brokers, topic, topicId, logs, plans);
      double seconds = (System.nanoTime() - started) / 1e9;

      // The new leader's first copy overlapped the old leader's last one in part, and was taken.
      assertThat(copied)
          .filteredOn(c -> c.key.partition() == MOVED_PARTITION && c.broker == 1)
          .first()
          .satisfies(c -> assertThat(c.overlappedFiles).isPositive());

      Catalog reader = catalogs.client(kind);
      Table table =
          reader.loadTable(TableIdentifier.of(namespace, TopicTables.baseTableName(topic)));
      for (int p = 0; p <= MOVED_PARTITION; p++) {
        assertPartitionHolds(table, p, logs.get(p).records(0, BATCHES));
      }
      for (Copied c : copied) {
        assertServesExactly(brokers.get((c.broker + 1) % BROKERS).segments, c);
      }
      WarehouseAudit.Result audit = WarehouseAudit.audit(table);
      assertNoOrphans(audit, table, copied);
      int retries = copied.stream().mapToInt(c -> c.commitAttempts - 1).sum();
      System.out.printf(
          Locale.ROOT,
          "SharedCatalogTest[%s]: %d copies from %d brokers into one table in"
              + " %.2f s = %.1f copies/s, %d retried by Floe, 0 failed; audit: %s%n",
          kind,
          copied.size(),
          BROKERS,
          seconds,
          copied.size() / seconds,
          retries,
          audit);
      close(reader);
    } finally {
      closeAll(brokers);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void threeBrokersCreateTheTableOfANewTopicAtOnce(Kind kind) throws Exception {
    String topic = "payments";
    String topicId = "R7x3cN6tR0m3Q0nS0b6y" + kind.ordinal() + "w";
    Namespace namespace = namespace(kind);
    Map<Integer, ReplicaLog> logs = new HashMap<>();
    Map<Integer, List<Planned>> plans = new HashMap<>();
    for (int p = 0; p < BROKERS; p++) {
      logs.put(p, ReplicaLog.generate(2000L * kind.ordinal() + p, SEGMENT_BATCHES, 60, dir));
      plans.put(p, List.of(new Planned(p, p, 0, SEGMENT_BATCHES)));
    }
    List<Broker> brokers = startBrokers(kind, namespace);
    try {
      List<Copied> copied = copyAll(brokers, topic, topicId, logs, plans);

      Catalog reader = catalogs.client(kind);
      assertThat(reader.listTables(namespace))
          .containsExactly(TableIdentifier.of(namespace, TopicTables.baseTableName(topic)));
      Table table = reader.loadTable(reader.listTables(namespace).get(0));
      for (int p = 0; p < BROKERS; p++) {
        assertPartitionHolds(table, p, logs.get(p).records(0, SEGMENT_BATCHES));
      }
      for (Copied c : copied) {
        assertServesExactly(brokers.get(c.broker).segments, c);
      }
      WarehouseAudit.Result audit = WarehouseAudit.audit(table);
      assertNoOrphans(audit, table, copied);
      System.out.printf(
          Locale.ROOT, "SharedCatalogTest[%s] table-creation race: audit: %s%n", kind, audit);
      close(reader);
    } finally {
      closeAll(brokers);
    }
  }

  private static Namespace namespace(Kind kind) {
    return Namespace.of(
        "shared_" + kind.name().toLowerCase(Locale.ROOT) + "_" + NAMESPACES.incrementAndGet());
  }

  private static List<Broker> startBrokers(Kind kind, Namespace namespace) {
    List<Broker> brokers = new ArrayList<>();
    for (int b = 0; b < BROKERS; b++) {
      brokers.add(Broker.start(b, kind, namespace));
    }
    return brokers;
  }

  /**
   * Runs every partition's plan at once, released together: the segments of one partition in order
   * (Kafka copies one segment of a partition at a time), each on the broker the plan names. Returns
   * what was copied; fails if any copy failed.
   */
  private List<Copied> copyAll(
      List<Broker> brokers,
      String topic,
      String topicId,
      Map<Integer, ReplicaLog> logs,
      Map<Integer, List<Planned>> plans)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(plans.size());
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<List<Copied>>> partitions = new ArrayList<>();
      for (Map.Entry<Integer, List<Planned>> plan : plans.entrySet()) {
        ReplicaLog log = logs.get(plan.getKey());
        partitions.add(
            pool.submit(
                () -> {
                  go.await();
                  List<Copied> done = new ArrayList<>();
                  for (Planned s : plan.getValue()) {
                    done.add(copy(brokers.get(s.broker), topic, topicId, log, s));
                  }
                  return done;
                }));
      }
      go.countDown();
      List<Copied> copied = new ArrayList<>();
      for (Future<List<Copied>> f : partitions) {
        copied.addAll(f.get(5, TimeUnit.MINUTES)); // a failed copy fails the test here
      }
      return copied;
    } finally {
      pool.shutdownNow();
    }
  }

  private Copied copy(Broker broker, String topic, String topicId, ReplicaLog log, Planned s) {
    String id = "b" + broker.id + "-p" + s.partition + "-" + s.fromBatch + "-" + s.toBatch;
    Path file = log.segment(dir.resolve(topic + "-" + id + ".log"), s.fromBatch, s.toBatch);
    long base = log.baseOffset(s.fromBatch);
    SegmentKey key = new SegmentKey(topic, topicId, s.partition, base, id);
    TieredSegments.CopyResult result = broker.segments.copy(key, SegmentFiles.of(file, base));
    return new Copied(key, file, broker.id, result.commitAttempts(), result.overlappedDataFiles());
  }

  /** The table's rows of {@code partition} are exactly {@code expected}: each offset once. */
  private static void assertPartitionHolds(Table table, int partition, List<KafkaRecord> expected) {
    RowCodec codec = new RowCodec(table.schema());
    List<KafkaRecord> actual = new ArrayList<>();
    for (Record row : TableFixture.rows(table)) {
      if ((Integer) ((Record) row.get(0)).get(0) == partition) {
        actual.add(codec.fromRow(row));
      }
    }
    Batches.assertSameRecords("partition " + partition, expected, actual);
  }

  /** Fetching the whole segment (through any broker) gives back exactly the batches copied. */
  private static void assertServesExactly(TieredSegments segments, Copied c) throws IOException {
    try (InputStream in = segments.open(c.key).fetch(0)) {
      Batches.assertSameBatches(Batches.read(c.log), Batches.read(in));
    }
  }

  /**
   * Every sidecar is one of the copied segments, and no data, delete, sidecar, manifest or
   * unexplained metadata object is unreferenced (a snapshot staged in a transaction that was given
   * up has its manifest list and manifests deleted by GroupCommit). Metadata files of catalog
   * commits that lost a race are listed by the audit and printed, not failed on: Iceberg writes
   * them before the swap it lost, they hold no data and nothing reads them (see
   * broker-config/PRODUCTION.md on removing them).
   */
  private static void assertNoOrphans(
      WarehouseAudit.Result audit, Table table, List<Copied> copied) {
    Set<String> sidecars = new TreeSet<>();
    copied.forEach(c -> sidecars.add(c.key.sidecarLocation(table.location())));
    assertThat(audit.sidecars()).as("sidecars").isEqualTo(sidecars);
    assertThat(audit.orphans()).as("objects nothing references").isEmpty();
    assertThat(audit.uncommittedSnapshotFiles())
        .as("manifest lists and manifests of snapshots never committed")
        .isEmpty();
    assertThat(audit.missing()).as("referenced objects missing").isEmpty();
  }

  private static void closeAll(List<Broker> brokers) throws Exception {
    for (Broker b : brokers) {
      b.close();
    }
  }

  private static void close(Catalog catalog) throws Exception {
    if (catalog instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }
}
