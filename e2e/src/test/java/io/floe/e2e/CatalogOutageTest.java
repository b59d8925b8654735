package io.floe.e2e;

import static io.floe.e2e.BrokerThreadWaits.maxCallMs;
import static io.floe.e2e.BrokerThreadWaits.readFromTheTierUntil;
import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.testing.LocalPostgres;
import io.floe.testing.SharedCatalogs;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The broker's catalog (a JdbcCatalog on a real PostgreSQL server) unusable for a while while
 * copies and fetches go on: first locked (another session holds an exclusive lock on Iceberg's
 * table of tables, so every statement of the plugin waits behind it), then refusing connections
 * (the database no longer accepts them and its sessions are ended: copies fail at once, fetches of
 * tables the plugin holds in memory go on). Every call of the plugin returns within its bound
 * ({@code operation.timeout.ms} 3 s, {@code copy.timeout.ms} 12 s here); once the catalog is back,
 * tiering resumes and the table holds every record once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CatalogOutageTest {
  private static final long OPERATION_MS = 3_000;
  private static final long COPY_MS = 12_000;
  private static final long MARGIN_MS = 2_000;
  private static final String DATABASE = "floe_catalog";

  private SharedCatalogs catalogs;
  private Map<String, String> properties;
  private FloeCluster cluster;
  private Admin admin;
  private PluginWarnings warnings;

  @BeforeAll
  void start() throws Exception {
    catalogs = SharedCatalogs.start();
    properties = catalogs.properties(SharedCatalogs.Kind.POSTGRES);
    Map<String, String> rsm = new HashMap<>();
    rsm.put("operation.timeout.ms", Long.toString(OPERATION_MS));
    rsm.put("copy.timeout.ms", Long.toString(COPY_MS));
    // Fetches load tables again (from the catalog) instead of serving them from memory.
    rsm.put("cache.tables.expiration.ms", "1000");
    rsm.put("cache.segments.max-entries", "1");
    cluster = FloeCluster.start(properties, rsm);
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    warnings = new PluginWarnings();
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
    if (catalogs != null) {
      catalogs.close();
    }
  }

  @Test
  @Order(1)
  void aLockedCatalogHoldsNoThreadPastTheBound() throws Exception {
    TieredTopic topic = tieredAndRead("outage.locked");
    long timeouts = floeMetric("OperationTimeouts");
    long lastProduced;
    try (Connection lock = superuser(DATABASE);
        Statement statement = lock.createStatement()) {
      statement.execute("BEGIN");
      statement.execute("LOCK TABLE iceberg_tables IN ACCESS EXCLUSIVE MODE");
      lastProduced = topic.produceAndRoll(120);
      readFromTheTierUntil(
          cluster,
          topic,
          "a copy and a fetch reach their bound",
          () -> floeMetric("OperationTimeouts") >= timeouts + 2);
      statement.execute("ROLLBACK");
    }
    long maxWait = maxCallMs();
    assertThat(warnings.drain())
        .anyMatch(
            m ->
                m.contains("did not finish within operation.timeout.ms=3000 ms")
                    && m.contains("the catalog's database (JDBC)"));
    assertRecovers(topic, lastProduced);
    System.out.printf(
        "catalog locked: max_thread_wait_ms=%d (bounds %d/%d ms), %d timeouts%n",
        maxWait, OPERATION_MS, COPY_MS, floeMetric("OperationTimeouts") - timeouts);
    assertThat(maxWait).isLessThanOrEqualTo(COPY_MS + MARGIN_MS);
  }

  @Test
  @Order(2)
  void aCatalogRefusingConnectionsFailsCopiesAtOnce() throws Exception {
    TieredTopic topic = tieredAndRead("outage.refusing");
    long copyErrors = floeMetric("CopyErrors");
    long fetchErrors = floeMetric("FetchErrors");
    long fetches = floeMetric("FetchCount");
    long lastProduced;
    try (Connection admin = superuser("postgres");
        Statement statement = admin.createStatement()) {
      statement.execute("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS false");
      statement.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
              + DATABASE
              + "'");
      lastProduced = topic.produceAndRoll(120);
      readFromTheTierUntil(
          cluster,
          topic,
          "copies fail, a retry too",
          () -> floeMetric("CopyErrors") >= copyErrors + 2);
      statement.execute("ALTER DATABASE " + DATABASE + " ALLOW_CONNECTIONS true");
    }
    long maxWait = maxCallMs();
    assertRecovers(topic, lastProduced);
    System.out.printf(
        "catalog refusing connections: max_thread_wait_ms=%d in all so far (bounds %d/%d ms), %d"
            + " copy errors; %d fetches served from the cached table, %d failed%n",
        maxWait,
        OPERATION_MS,
        COPY_MS,
        floeMetric("CopyErrors") - copyErrors,
        floeMetric("FetchCount") - fetches,
        floeMetric("FetchErrors") - fetchErrors);
    assertThat(maxWait).isLessThanOrEqualTo(COPY_MS + MARGIN_MS);
  }

  /** A topic with tiered segments whose local copies are gone: reads from 0 go to the tier. */
  private TieredTopic tieredAndRead(String name) throws Exception {
    TieredTopic topic = TieredTopic.create(cluster, admin, name);
    long produced = topic.produceAndRoll(200);
    topic.awaitTieredThrough(produced);
    topic.awaitLocalLogStartPast(produced);
    assertThat(topic.consume(0, produced)).hasSize((int) produced + 1);
    warnings.drain();
    return topic;
  }

  private void assertRecovers(TieredTopic topic, long lastProduced) throws Exception {
    topic.awaitTieredThrough(lastProduced);
    try (JdbcCatalog catalog = FloeCluster.catalog(properties)) {
      topic.assertTableHoldsEachRecordOnce(topic.table(catalog), lastProduced, false);
    }
  }

  private Connection superuser(String database) throws Exception {
    return DriverManager.getConnection(
        catalogs.postgres().jdbcUrl(database), LocalPostgres.USER, "");
  }
}
