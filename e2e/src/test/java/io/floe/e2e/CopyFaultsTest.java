package io.floe.e2e;

import static io.floe.e2e.TieredTopic.AWAIT;
import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.testing.LocalS3;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Faults while the broker copies segments: the object store down, then answering writes with HTTP
 * 503 (a {@link FaultyProxy} between the plugin's S3FileIO and S3Proxy), and the catalog refusing
 * commits or locked entirely (another connection holds a lock on the SQLite catalog). While the
 * fault lasts, copies fail (CopyErrors rises), Kafka tiers nothing and the table shows nothing of
 * the failed copies; once the fault is gone the broker retries, and the table holds every record
 * exactly once, each segment in one snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyFaultsTest {
  @TempDir static Path dir;

  private FaultyProxy proxy;
  private FloeCluster cluster;
  private Admin admin;
  private Map<String, String> direct;

  @BeforeAll
  void start() throws Exception {
    direct = FloeCluster.s3CatalogProperties(dir);
    proxy = new FaultyProxy(LocalS3.get().endpoint());
    Map<String, String> broker = new HashMap<>(direct);
    broker.put("s3.endpoint", proxy.endpoint().toString());
    // Fail a copy within seconds instead of after Iceberg's default S3 retries (5, 2 to 20 s
    // apart).
    broker.put("s3.retry.num-retries", "1");
    broker.put("s3.retry.min-wait-ms", "100");
    broker.put("s3.retry.max-wait-ms", "500");
    cluster = FloeCluster.start(broker, Map.of());
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
  }

  @AfterAll
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void objectStoreFailuresFailTheCopyUntilTheStoreIsBack() throws Exception {
    TieredTopic topic = TieredTopic.create(cluster, admin, "faults.store");
    topic.produceAndRoll(120);
    long tieredBefore = topic.awaitAllTiered();
    // A read of the tier leaves the plugin's table metadata fresh. Otherwise the first copy in the
    // outage would re-read it, and Iceberg retries a failed metadata read 20 times over about 90 s:
    // the copy would fail only at operation.timeout.ms (30 s; StorageStallsTest covers that case).
    assertThat(topic.consume(0, tieredBefore)).hasSize((int) tieredBefore + 1);

    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      Table table = topic.table(catalog);
      long snapshot = snapshotId(table);
      proxy.mode(FaultyProxy.Mode.DOWN);
      long errors = floeMetric("CopyErrors");
      long lastProduced = topic.produceAndRoll(120);
      awaitCopyErrorAfter(errors);
      assertThat(proxy.faulted(FaultyProxy.Mode.DOWN)).as("connections reset").isPositive();
      assertThat(topic.latestTiered())
          .as("Kafka tiered nothing while the store was down")
          .isEqualTo(tieredBefore);
      assertThat(snapshotId(table)).as("no snapshot while the store was down").isEqualTo(snapshot);

      proxy.mode(FaultyProxy.Mode.HTTP_503);
      await("a write is answered 503")
          .atMost(AWAIT)
          .until(() -> proxy.faulted(FaultyProxy.Mode.HTTP_503) > 0);
      awaitCopyErrorAfter(floeMetric("CopyErrors"));
      assertThat(topic.latestTiered())
          .as("Kafka tiered nothing while the store failed")
          .isEqualTo(tieredBefore);
      assertThat(snapshotId(table)).as("no snapshot while the store failed").isEqualTo(snapshot);

      proxy.mode(FaultyProxy.Mode.PASS);
      topic.awaitTieredThrough(lastProduced);
      topic.assertTableHoldsEachRecordOnce(table, lastProduced, true);
    }
    System.out.printf(
        "object store faults: %d copy errors, %d connections reset, %d writes answered 503%n",
        floeMetric("CopyErrors"),
        proxy.faulted(FaultyProxy.Mode.DOWN),
        proxy.faulted(FaultyProxy.Mode.HTTP_503));
  }

  /**
   * BEGIN IMMEDIATE lets the plugin read the catalog but not commit (the copy fails at its commit,
   * after its files were written); BEGIN EXCLUSIVE shuts it out entirely (the copy fails before
   * writing anything).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"IMMEDIATE", "EXCLUSIVE"})
  void aLockedCatalogFailsTheCopyUntilItIsReleased(String lockMode) throws Exception {
    TieredTopic topic =
        TieredTopic.create(cluster, admin, "faults.catalog-" + lockMode.toLowerCase(Locale.ROOT));
    topic.awaitTieredThrough(topic.produceAndRoll(120));

    long lastProduced;
    long snapshotBefore;
    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      snapshotBefore = snapshotId(topic.table(catalog));
    }
    String url = direct.get("uri");
    try (Connection lock = DriverManager.getConnection(url);
        Statement statement = lock.createStatement()) {
      statement.execute("BEGIN " + lockMode);
      long errors = floeMetric("CopyErrors");
      lastProduced = topic.produceAndRoll(120);
      awaitCopyErrorAfter(errors);
      // Taken after a failure: a copy that committed just before the lock has told Kafka by now.
      long tiered = topic.latestTiered();
      awaitCopyErrorAfter(floeMetric("CopyErrors")); // a retry fails too
      assertThat(topic.latestTiered())
          .as("Kafka tiered nothing while the catalog was locked")
          .isEqualTo(tiered);
      assertThat(tiered).isLessThan(lastProduced);
      statement.execute("ROLLBACK");
    }

    // Everything, so that no copy is in flight when the bucket is listed.
    assertThat(topic.awaitAllTiered()).isGreaterThanOrEqualTo(lastProduced);
    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      Table table = topic.table(catalog);
      List<TieredTopic.CopySnapshot> copies = TieredTopic.copySnapshots(table);
      assertThat(copies.stream().map(TieredTopic.CopySnapshot::snapshotId))
          .as("the snapshot from before the lock is still in the history")
          .contains(snapshotBefore);
      topic.assertTableHoldsEachRecordOnce(table, lastProduced, true);
      assertFailedCopiesLeftNoObjects(table, copies);
    }
  }

  /**
   * The store stayed up, so each failed copy removed what it wrote: the only data files are the
   * table's and the only sidecars those of the committed segments.
   */
  private static void assertFailedCopiesLeftNoObjects(
      Table table, List<TieredTopic.CopySnapshot> copies) throws Exception {
    Set<String> tableFiles = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        tableFiles.add(task.file().location());
        task.deletes().forEach(d -> tableFiles.add(d.location()));
      }
    }
    assertThat(objects(table.location() + "/data/"))
        .as("data files in the bucket")
        .isEqualTo(tableFiles);
    Set<String> sidecarIds = new HashSet<>();
    for (String sidecar : objects(table.location() + "/floe/segments/")) {
      String name = sidecar.substring(sidecar.lastIndexOf('/') + 1);
      sidecarIds.add(name.substring(name.indexOf('-') + 1, name.lastIndexOf('.')));
    }
    assertThat(sidecarIds)
        .as("segment ids of the sidecars in the bucket")
        .isEqualTo(
            copies.stream().map(TieredTopic.CopySnapshot::segmentId).collect(Collectors.toSet()));
  }

  /** Locations (s3://bucket/key) of the objects under an s3:// prefix. */
  private static Set<String> objects(String prefix) {
    URI uri = URI.create(prefix);
    String bucket = uri.getHost();
    Set<String> out = new HashSet<>();
    try (S3Client s3 = LocalS3.get().client()) {
      s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(uri.getPath().substring(1)))
          .contents()
          .forEach(o -> out.add("s3://" + bucket + "/" + o.key()));
    }
    return out;
  }

  private static void awaitCopyErrorAfter(long errors) {
    await("a copy fails")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> floeMetric("CopyErrors") > errors);
  }

  private static long snapshotId(Table table) {
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }
}
