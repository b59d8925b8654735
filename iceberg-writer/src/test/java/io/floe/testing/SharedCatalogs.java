package io.floe.testing;

import io.floe.catalog.CatalogDefaults;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * The catalogs several brokers share, started for real on 127.0.0.1 for one test class: JDBC on an
 * embedded PostgreSQL server, and Iceberg's REST catalog server (its backend a JdbcCatalog on the
 * same PostgreSQL server), both over one S3Proxy bucket as the warehouse. The REST server starts on
 * first use. {@link #client} builds an independent catalog client the way the plugin does on each
 * broker ({@code CatalogUtil.buildIcebergCatalog} with Floe's catalog defaults).
 *
 * <pre>{@code
 * static SharedCatalogs catalogs;
 * @BeforeAll static void start() { catalogs = SharedCatalogs.start(); }
 * @AfterAll static void stop() throws Exception { catalogs.close(); }
 * }</pre>
 */
public final class SharedCatalogs implements AutoCloseable {
  /** What every broker calls its catalog: JdbcCatalog keys its rows by this name. */
  public static final String CATALOG_NAME = TestCatalogs.CATALOG_NAME;

  /** A shared catalog kind. */
  public enum Kind {
    /** Iceberg's JdbcCatalog on PostgreSQL ({@code iceberg.type=jdbc}). */
    POSTGRES,
    /** Iceberg's REST catalog ({@code iceberg.type=rest}). */
    REST
  }

  private static final String JDBC_DATABASE = "floe_catalog";

  private final LocalPostgres postgres;
  private final String bucket;
  private LocalRestCatalog rest;

  private SharedCatalogs(LocalPostgres postgres, String bucket) {
    this.postgres = postgres;
    this.bucket = bucket;
  }

  /** Starts PostgreSQL (and S3Proxy, once per JVM) and creates this class's warehouse bucket. */
  public static SharedCatalogs start() {
    String bucket = "floe-shared-" + UUID.randomUUID().toString().substring(0, 8);
    LocalS3.get().createBucket(bucket);
    LocalPostgres postgres = LocalPostgres.start();
    postgres.createDatabase(JDBC_DATABASE);
    return new SharedCatalogs(postgres, bucket);
  }

  public LocalPostgres postgres() {
    return postgres;
  }

  /**
   * The catalog properties of every broker using {@code kind} (a broker sets each one as {@code
   * rsm.config.iceberg.<key>}).
   */
  public synchronized Map<String, String> properties(Kind kind) {
    Map<String, String> props = new HashMap<>(LocalS3.get().fileIoProperties());
    switch (kind) {
      case POSTGRES -> {
        props.putAll(jdbcProperties(JDBC_DATABASE, "warehouse"));
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
      }
      case REST -> props.putAll(restServer().clientProperties(Map.of()));
    }
    return props;
  }

  /** A new, independent catalog client (its own connections and FileIO), as one broker has. */
  public Catalog client(Kind kind) {
    return CatalogUtil.buildIcebergCatalog(
        CATALOG_NAME, CatalogDefaults.apply(properties(kind)), new Configuration(false));
  }

  private Map<String, String> jdbcProperties(String database, String warehouseDir) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, postgres.jdbcUrl(database));
    props.put("jdbc.user", LocalPostgres.USER);
    props.put("jdbc.schema-version", "V1");
    props.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + bucket + "/" + warehouseDir);
    return props;
  }

  private LocalRestCatalog restServer() {
    if (rest == null) {
      postgres.createDatabase("floe_rest");
      Map<String, String> backend = new HashMap<>(LocalS3.get().fileIoProperties());
      backend.putAll(jdbcProperties("floe_rest", "rest-warehouse"));
      backend.put(CatalogProperties.CATALOG_IMPL, "org.apache.iceberg.jdbc.JdbcCatalog");
      rest = LocalRestCatalog.start("rest_backend", backend);
    }
    return rest;
  }

  @Override
  public synchronized void close() throws Exception {
    try {
      if (rest != null) {
        rest.close();
      }
    } finally {
      postgres.close();
    }
  }
}
