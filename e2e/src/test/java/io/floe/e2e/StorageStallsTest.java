package io.floe.e2e;

import static io.floe.e2e.BrokerThreadWaits.maxCallMs;
import static io.floe.e2e.BrokerThreadWaits.readFromTheTierUntil;
import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.testing.LocalS3;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits on the object store that used to hold broker threads for minutes, bounded: the broker's S3
 * goes through a {@link FaultyProxy} that makes it unreachable, slow (a second per request) or
 * unanswering, while copies and fetches go on. Every call of the plugin returns (or fails) within
 * its bound ({@code operation.timeout.ms} 3 s, {@code copy.timeout.ms} 12 s here), as the plugin's
 * CallLatency metric shows; once the store is back, tiering resumes and the table holds every
 * record once. The longest wait of each fault is printed ({@code max_thread_wait_ms}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StorageStallsTest {
  private static final long OPERATION_MS = 3_000;
  private static final long COPY_MS = 12_000;
  // scheduling on a loaded 2-core machine; the bound itself is what is asserted
  private static final long MARGIN_MS = 2_000;

  @TempDir static Path dir;

  private FaultyProxy proxy;
  private FloeCluster cluster;
  private Admin admin;
  private Map<String, String> direct;
  private PluginWarnings warnings;

  @BeforeAll
  void start() throws Exception {
    direct = FloeCluster.s3CatalogProperties(dir);
    proxy = new FaultyProxy(LocalS3.get().endpoint());
    Map<String, String> broker = new HashMap<>(direct);
    broker.put("s3.endpoint", proxy.endpoint().toString());
    broker.put("s3.retry.num-retries", "1");
    broker.put("http-client.apache.socket-timeout-ms", "2500");
    Map<String, String> rsm = new HashMap<>();
    rsm.put("operation.timeout.ms", Long.toString(OPERATION_MS));
    rsm.put("copy.timeout.ms", Long.toString(COPY_MS));
    // Every fetch loads its table again (from storage) instead of serving it from memory: with a
    // longer expiry, fetches in quick succession keep the table cached and fail fast on the data
    // file once the store is down, never reaching the metadata read that Iceberg retries for 90 s.
    rsm.put("cache.tables.expiration.ms", "1");
    rsm.put("cache.segments.max-entries", "1");
    cluster = FloeCluster.start(broker, rsm);
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    warnings = new PluginWarnings();
  }

  /** A failed scenario leaves the store reachable for the next one. */
  @AfterEach
  void storeBack() {
    proxy.mode(FaultyProxy.Mode.PASS);
  }

  @AfterAll
  void stop() throws Exception {
    if (warnings != null) {
      warnings.close();
    }
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

  /**
   * A table read with the store down: Iceberg retries reading a table's metadata file 20 times over
   * about 90 s, on every table load (a fetch of a segment not in memory, a copy after a failed one)
   * and on every refresh of a table another writer moved on. Cut at {@code operation.timeout.ms}.
   */
  @Test
  @Order(1)
  void aTableReadWithTheStoreDownIsCutAtTheBound() throws Exception {
    TieredTopic topic = TieredTopic.create(cluster, admin, "stalls.metadata");
    long tiered = topic.produceAndRoll(200);
    topic.awaitTieredThrough(tiered);
    topic.awaitLocalLogStartPast(tiered); // reads from offset 0 go to the tier
    assertThat(topic.consume(0, tiered)).hasSize((int) tiered + 1);
    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      // Another writer moves the table on: the broker's view of it is stale.
      topic.table(catalog).updateProperties().set("floe.test.touched", "true").commit();
    }
    warnings.drain();
    long timeouts = floeMetric("OperationTimeouts");

    proxy.mode(FaultyProxy.Mode.DOWN);
    long lastProduced = topic.produceAndRoll(120);
    readFromTheTierUntil(
        cluster,
        topic,
        "a fetch and a copy reach their bound",
        () -> floeMetric("OperationTimeouts") >= timeouts + 2);
    assertThat(warnings.drain())
        .as("what the broker log says")
        .anyMatch(
            m ->
                m.contains("did not finish within operation.timeout.ms=3000 ms")
                    && m.contains("as Iceberg retries reading the table's metadata file"));
    long maxWait = maxCallMs();
    proxy.mode(FaultyProxy.Mode.PASS);

    topic.awaitTieredThrough(lastProduced);
    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      topic.assertTableHoldsEachRecordOnce(topic.table(catalog), lastProduced, false);
    }
    System.out.printf(
        "store down with a stale table: max_thread_wait_ms=%d (bounds %d/%d ms), %d timeouts%n",
        maxWait, OPERATION_MS, COPY_MS, floeMetric("OperationTimeouts") - timeouts);
    assertThat(maxWait).isLessThanOrEqualTo(COPY_MS + MARGIN_MS);
  }

  /**
   * Each request a second late (copies that commit for longer than the bound are cut, fetches
   * crawl), then no answer at all (each request times out in the S3 client, or the call at its
   * bound).
   */
  @Test
  @Order(2)
  void aSlowThenUnansweringStoreHoldsNoThreadPastTheBound() throws Exception {
    TieredTopic topic = TieredTopic.create(cluster, admin, "stalls.slow");
    long tiered = topic.produceAndRoll(200);
    topic.awaitTieredThrough(tiered);
    topic.awaitLocalLogStartPast(tiered); // reads from offset 0 go to the tier
    assertThat(topic.consume(0, tiered)).hasSize((int) tiered + 1);
    long timeouts = floeMetric("OperationTimeouts");

    proxy.latency(1_000);
    proxy.mode(FaultyProxy.Mode.SLOW);
    long lastProduced = topic.produceAndRoll(120);
    readFromTheTierUntil(
        cluster,
        topic,
        "calls reach their bound",
        () -> floeMetric("OperationTimeouts") >= timeouts + 2);
    long slowMax = maxCallMs();

    long copyErrors = floeMetric("CopyErrors");
    long fetchErrors = floeMetric("FetchErrors");
    proxy.mode(FaultyProxy.Mode.HANG);
    lastProduced = topic.produceAndRoll(120);
    readFromTheTierUntil(
        cluster,
        topic,
        "copies and fetches fail",
        () -> floeMetric("CopyErrors") > copyErrors && floeMetric("FetchErrors") > fetchErrors);
    assertThat(proxy.faulted(FaultyProxy.Mode.HANG)).as("requests left unanswered").isPositive();
    long maxWait = maxCallMs();
    proxy.mode(FaultyProxy.Mode.PASS);

    topic.awaitTieredThrough(lastProduced);
    try (JdbcCatalog catalog = FloeCluster.catalog(direct)) {
      Table table = topic.table(catalog);
      topic.assertTableHoldsEachRecordOnce(table, lastProduced, false);
    }
    List<String> logged = warnings.drain();
    assertThat(logged)
        .as("timeouts name the key")
        .anyMatch(m -> m.contains("did not finish within operation.timeout.ms=3000 ms"));
    System.out.printf(
        "store slow (1 s a request), then unanswering: max_thread_wait_ms=%d while slow, %d in all"
            + " (bounds %d/%d ms), %d timeouts%n",
        slowMax, maxWait, OPERATION_MS, COPY_MS, floeMetric("OperationTimeouts") - timeouts);
    assertThat(maxWait).isLessThanOrEqualTo(COPY_MS + MARGIN_MS);
  }
}
