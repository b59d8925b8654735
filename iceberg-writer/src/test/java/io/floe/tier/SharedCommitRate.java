package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.CommitProfile;
import io.floe.testing.ReplicaLog;
import io.floe.testing.SharedCatalogs;
import io.floe.testing.SharedCatalogs.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures commit throughput into one table from three brokers, each with its own catalog client
 * and table instance, on a shared catalog (PostgreSQL by default): small segments copied for a
 * fixed time, segments (and snapshots) per second in total and per broker (per 5 s window, to show
 * starvation), commit attempts, where the copiers' wall time goes (sampled stacks), and how
 * metadata.json grows with the snapshot count. A measurement, not a check: runs only when asked.
 *
 * <pre>
 * mvn -o -pl iceberg-writer test -Dtest=SharedCommitRate -Dfloe.commitRate=true \
 *   [-Dfloe.commitRate.kind=REST] [-Dfloe.commitRate.seconds=25] [-Dfloe.commitRate.copiers=1] \
 *   [-Dfloe.commitRate.brokers=3]
 * </pre>
 */
@EnabledIfSystemProperty(named = "floe.commitRate", matches = "true")
class SharedCommitRate {
  private static final int BROKERS = Integer.getInteger("floe.commitRate.brokers", 3);
  private static final int SEGMENT_BATCHES = 2;
  private static final long WARM_UP_MS = 4_000;
  private static final Pattern VERSION = Pattern.compile("/(\\d+)-[0-9a-f-]{36}\\.metadata\\.json");

  @TempDir Path dir;

  /** One finished copy. */
  private record Done(int broker, long atMs, int attempts, long snapshotId) {}

  @Test
  void commitRate() throws Exception {
    Kind kind = Kind.valueOf(System.getProperty("floe.commitRate.kind", "POSTGRES"));
    int seconds = Integer.getInteger("floe.commitRate.seconds", 25);
    int copiers = Integer.getInteger("floe.commitRate.copiers", 1);
    Namespace namespace = Namespace.of("rate");
    String topic = "rate";
    String topicId = "RateTopicId000000000w";
    try (SharedCatalogs catalogs = SharedCatalogs.start();
        CommitProfile profile = new CommitProfile(7)) {
      List<Catalog> clients = new ArrayList<>();
      List<TieredSegments> brokers = new ArrayList<>();
      for (int b = 0; b < BROKERS; b++) {
        Catalog catalog = catalogs.client(kind);
        clients.add(catalog);
        brokers.add(
            new TieredSegments(
                new TopicTables(catalog, TopicTableOptions.builder().namespace(namespace).build()),
                new SegmentCommitter()));
      }
      brokers.get(0).tables().resolve(topic, topicId);
      int batches = SEGMENT_BATCHES * 400;
      ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
      AtomicInteger failed = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(BROKERS * copiers);
      CountDownLatch go = new CountDownLatch(1);
      long start = System.currentTimeMillis();
      long end = start + WARM_UP_MS + seconds * 1000L;
      List<Future<?>> futures = new ArrayList<>();
      for (int b = 0; b < BROKERS; b++) {
        for (int c = 0; c < copiers; c++) {
          int broker = b;
          int partition = b * copiers + c;
          ReplicaLog log = ReplicaLog.generate(partition, batches, 100, dir);
          futures.add(
              pool.submit(
                  () -> {
                    go.await();
                    profile.register();
                    for (int s = 0; s + SEGMENT_BATCHES <= batches; s += SEGMENT_BATCHES) {
                      if (System.currentTimeMillis() >= end) {
                        break;
                      }
                      String id = "p" + partition + "-" + s;
                      Path file = log.segment(dir.resolve(id + ".log"), s, s + SEGMENT_BATCHES);
                      long base = log.baseOffset(s);
                      try {
                        TieredSegments.CopyResult r =
                            brokers
                                .get(broker)
                                .copy(
                                    new SegmentKey(topic, topicId, partition, base, id),
                                    SegmentFiles.of(file, base));
                        done.add(
                            new Done(
                                broker,
                                System.currentTimeMillis() - start,
                                r.commitAttempts(),
                                r.snapshotId()));
                      } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        System.err.println("copy failed: " + e);
                      }
                    }
                    profile.unregister();
                    return null;
                  }));
        }
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.MINUTES);
      }
      pool.shutdown();
      report(kind, copiers, seconds, List.copyOf(done), failed.get(), profile);
      Table table =
          clients.get(0).loadTable(TableIdentifier.of(namespace, TopicTables.baseTableName(topic)));
      metadataFigures(table);
      assertThat(failed.get()).as("failed copies").isZero();
      for (Catalog c : clients) {
        if (c instanceof AutoCloseable closeable) {
          closeable.close();
        }
      }
    }
  }

  private static void report(
      Kind kind, int copiers, int seconds, List<Done> all, int failed, CommitProfile profile) {
    List<Done> measured = all.stream().filter(d -> d.atMs >= WARM_UP_MS).toList();
    double window = seconds;
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "SharedCommitRate[%s, %d brokers x %d copiers, %d s after %d ms warm-up]: %.2f segments/s"
                + " total in %.2f snapshots/s, %d failed copies, %.2f Floe attempts per copy%n",
            kind,
            BROKERS,
            copiers,
            seconds,
            WARM_UP_MS,
            measured.size() / window,
            measured.stream().mapToLong(Done::snapshotId).distinct().count() / window,
            failed,
            measured.stream().mapToInt(Done::attempts).average().orElse(0)));
    for (int b = 0; b < BROKERS; b++) {
      int broker = b;
      List<Done> mine = measured.stream().filter(d -> d.broker == broker).toList();
      StringBuilder windows = new StringBuilder();
      for (long w = WARM_UP_MS; w < WARM_UP_MS + seconds * 1000L; w += 5000) {
        long from = w;
        windows
            .append(' ')
            .append(mine.stream().filter(d -> d.atMs >= from && d.atMs < from + 5000).count());
      }
      out.append(
          String.format(
              Locale.ROOT,
              "  broker %d: %.2f segments/s, %.2f attempts per copy, per 5 s:%s%n",
              b,
              mine.size() / window,
              mine.stream().mapToInt(Done::attempts).average().orElse(0),
              windows));
    }
    out.append(profile.report());
    System.out.print(out);
  }

  /**
   * Catalog commit attempts (every attempt writes a metadata.json: the files of one version number
   * beyond the first lost the race), the current metadata.json's size per snapshot, and what
   * writing and parsing it costs.
   */
  private static void metadataFigures(Table table) {
    TableMetadata metadata = ((BaseTable) table).operations().current();
    int snapshots = metadata.snapshots().size();
    long size = table.io().newInputFile(metadata.metadataFileLocation()).getLength();
    int files = 0;
    int maxVersion = 0;
    for (FileInfo f :
        ((SupportsPrefixOperations) table.io()).listPrefix(table.location() + "/metadata/")) {
      Matcher m = VERSION.matcher(f.location());
      if (m.find()) {
        files++;
        maxVersion = Math.max(maxVersion, Integer.parseInt(m.group(1)));
      }
    }
    String json = TableMetadataParser.toJson(metadata);
    long t0 = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      json = TableMetadataParser.toJson(metadata);
    }
    long t1 = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      TableMetadataParser.fromJson(metadata.metadataFileLocation(), json);
    }
    long t2 = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "  catalog commits: %d metadata.json files written for %d versions (%d lost the race);"
            + " %d snapshots; metadata.json %d bytes = %.0f bytes/snapshot; toJson %.2f ms,"
            + " fromJson %.2f ms%n",
        files,
        maxVersion + 1,
        files - maxVersion - 1,
        snapshots,
        size,
        size / (double) Math.max(1, snapshots),
        (t1 - t0) / 20e6,
        (t2 - t1) / 20e6);
  }
}
