package io.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Closeable;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokers (and head views) that start at once against a fresh JDBC catalog initialize its tables
 * concurrently; Iceberg's JdbcCatalog checks and then alters them, so all but one may fail.
 */
class CatalogStartupTest {
  private static final int STARTERS = 6;

  @TempDir Path dir;

  @Test
  void startersRacingOnAFreshJdbcCatalogAllStart() throws Exception {
    for (int round = 0; round < 5; round++) {
      Map<String, String> props = jdbc(dir.resolve("catalog-" + round + ".db"));
      for (Catalog catalog : startTogether(() -> CatalogStartup.build("floe", props, null))) {
        assertThat(((SupportsNamespaces) catalog).listNamespaces()).isEmpty();
        ((Closeable) catalog).close();
      }
    }
  }

  @Test
  void aRefusalThatPassesIsTriedAgain() {
    RefusingCatalog.reset(1, new UncheckedSQLException(new SQLException("busy"), "Cannot init"));
    Catalog catalog = CatalogStartup.build("floe", refusing(), null);
    assertThat(catalog).isInstanceOf(RefusingCatalog.class);
    assertThat(RefusingCatalog.ATTEMPTS.get()).isEqualTo(2);
  }

  @Test
  void aRefusalThatLastsIsThrownAfterTheLastAttempt() {
    UncheckedSQLException refusal =
        new UncheckedSQLException(new SQLException("down"), "Cannot initialize JDBC catalog");
    RefusingCatalog.reset(Integer.MAX_VALUE, refusal);
    assertThatThrownBy(() -> CatalogStartup.build("floe", refusing(), null)).isSameAs(refusal);
    assertThat(RefusingCatalog.ATTEMPTS.get()).isEqualTo(CatalogStartup.ATTEMPTS);
  }

  @Test
  void otherFailuresAreNotTriedAgain() {
    IllegalArgumentException wrong = new IllegalArgumentException("no warehouse");
    RefusingCatalog.reset(Integer.MAX_VALUE, wrong);
    assertThatThrownBy(() -> CatalogStartup.build("floe", refusing(), null)).isSameAs(wrong);
    assertThat(RefusingCatalog.ATTEMPTS.get()).isEqualTo(1);
  }

  private static Map<String, String> refusing() {
    return Map.of(CatalogProperties.CATALOG_IMPL, RefusingCatalog.class.getName());
  }

  /** A catalog whose first initializations fail as told; CatalogUtil makes it by class name. */
  public static class RefusingCatalog extends InMemoryCatalog {
    static final AtomicInteger ATTEMPTS = new AtomicInteger();
    private static volatile int refusals;
    private static volatile RuntimeException failure;

    static void reset(int refusalCount, RuntimeException refusal) {
      ATTEMPTS.set(0);
      refusals = refusalCount;
      failure = refusal;
    }

    @Override
    public void initialize(String name, Map<String, String> properties) {
      if (ATTEMPTS.incrementAndGet() <= refusals) {
        throw failure;
      }
      super.initialize(name, properties);
    }
  }

  private interface Starter {
    Catalog start();
  }

  private static List<Catalog> startTogether(Starter starter) throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(STARTERS);
    ExecutorService pool = Executors.newFixedThreadPool(STARTERS);
    try {
      List<Future<Catalog>> started = new ArrayList<>();
      for (int i = 0; i < STARTERS; i++) {
        started.add(
            pool.submit(
                () -> {
                  barrier.await();
                  return starter.start();
                }));
      }
      List<Catalog> out = new ArrayList<>();
      for (Future<Catalog> f : started) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static Map<String, String> jdbc(Path file) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + file);
    props.put("jdbc.schema-version", "V1");
    props.put(
        CatalogProperties.WAREHOUSE_LOCATION,
        file.getParent().resolve("warehouse").toUri().toString());
    return props;
  }
}
