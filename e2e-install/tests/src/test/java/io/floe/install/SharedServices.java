package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.demo.ChildJvm;
import io.floe.demo.LocalStack;
import io.floe.testing.LocalPostgres;
import io.floe.testing.LocalRestCatalog;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * What several brokers share besides each other: S3Proxy as a child process (the warehouse bucket),
 * a real PostgreSQL server (the JDBC catalog), and on demand Iceberg's REST catalog server in this
 * JVM (its backend a JdbcCatalog on the same PostgreSQL server). Hands out the {@code
 * rsm.config.iceberg.*} settings of each catalog for the brokers, and catalog clients of the test's
 * own that see what the brokers committed.
 */
final class SharedServices implements AutoCloseable {
  static final Path S3PROXY_LIBS =
      Path.of(System.getProperty("floe.install.s3proxy", "../s3proxy/target/libs"));

  /** What every broker calls its catalog: JdbcCatalog keys its rows by this name. */
  static final String CATALOG_NAME = "floe";

  /** A shared catalog kind. */
  enum Kind {
    POSTGRES,
    REST
  }

  private final ChildJvm s3proxy;
  private final int s3Port;
  private final LocalPostgres postgres;
  private LocalRestCatalog rest;

  private SharedServices(ChildJvm s3proxy, int s3Port, LocalPostgres postgres) {
    this.s3proxy = s3proxy;
    this.s3Port = s3Port;
    this.postgres = postgres;
  }

  static SharedServices start(Path dir) throws Exception {
    int port = ChildJvm.freePort();
    Path s3Dir = dir.resolve("s3proxy");
    Path config = LocalStack.writeS3ProxyConfig(s3Dir, port);
    ChildJvm s3proxy =
        ChildJvm.start(
            "S3Proxy",
            S3PROXY_LIBS,
            LocalStack.s3ProxyJvmArgs(s3Dir),
            "org.gaul.s3proxy.Main",
            List.of("--properties", config.toAbsolutePath().toString()),
            s3Dir.resolve("s3proxy.log"));
    LocalPostgres postgres = null;
    try {
      postgres = LocalPostgres.start();
      await("S3Proxy listening on " + port)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                s3proxy.checkAlive();
                try (Socket socket = new Socket("127.0.0.1", port)) {
                  return true;
                } catch (IOException notYet) {
                  return false;
                }
              });
      return new SharedServices(s3proxy, port, postgres);
    } catch (Exception | AssertionError e) {
      s3proxy.stop(5);
      if (postgres != null) {
        postgres.close();
      }
      throw e;
    }
  }

  int s3Port() {
    return s3Port;
  }

  long s3ProxyPid() {
    return s3proxy.pid();
  }

  /**
   * The broker settings ({@code rsm.config.iceberg.*}) of a new catalog of {@code kind} whose
   * tables live under {@code s3://floe/<name>}: a database of its own on the PostgreSQL server, or
   * the REST server (started on first use) over one.
   */
  Map<String, String> brokerCatalog(Kind kind, String name) {
    Map<String, String> catalog = new HashMap<>();
    catalog.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + LocalStack.BUCKET + "/" + name);
    switch (kind) {
      case POSTGRES -> catalog.putAll(jdbc(name));
      case REST -> catalog.putAll(restServer(name).clientProperties(Map.of()));
    }
    Map<String, String> broker = new HashMap<>();
    catalog.forEach((k, v) -> broker.put("rsm.config.iceberg." + k, v));
    return broker;
  }

  private Map<String, String> jdbc(String database) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
    props.put(CatalogProperties.URI, postgres.createDatabase(database));
    props.put("jdbc.user", LocalPostgres.USER);
    props.put("jdbc.schema-version", "V1");
    return props;
  }

  private LocalRestCatalog restServer(String name) {
    if (rest == null) {
      Map<String, String> backend = new HashMap<>(fileIo());
      backend.putAll(jdbc(name + "_backend"));
      backend.remove(CatalogUtil.ICEBERG_CATALOG_TYPE);
      backend.put(CatalogProperties.CATALOG_IMPL, "org.apache.iceberg.jdbc.JdbcCatalog");
      backend.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + LocalStack.BUCKET + "/" + name);
      rest = LocalRestCatalog.start("rest_backend", backend);
    }
    return rest;
  }

  /** S3FileIO on the S3Proxy child, as the brokers' shipped config sets it. */
  Map<String, String> fileIo() {
    return Map.of(
        CatalogProperties.FILE_IO_IMPL,
        "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint",
        "http://127.0.0.1:" + s3Port,
        "s3.path-style-access",
        "true",
        "s3.access-key-id",
        LocalStack.ACCESS_KEY,
        "s3.secret-access-key",
        LocalStack.SECRET_KEY,
        "client.region",
        "us-east-1");
  }

  /** A catalog client of the test's own on a broker's catalog settings. */
  Catalog client(Map<String, String> brokerCatalog) {
    Map<String, String> props = new HashMap<>(fileIo());
    brokerCatalog.forEach((k, v) -> props.put(k.substring("rsm.config.iceberg.".length()), v));
    return CatalogUtil.buildIcebergCatalog(CATALOG_NAME, props, null);
  }

  @Override
  public void close() throws Exception {
    try {
      if (rest != null) {
        rest.close();
      }
    } finally {
      try {
        postgres.close();
      } finally {
        s3proxy.stop(5);
      }
    }
  }
}
