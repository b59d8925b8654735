package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.common.DynConstructors;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's failure, reproduced: DriverManager is initialised before the plugin is loaded in a
 * class loader of its own (child first, as Kafka's {@code remote.log.storage.manager.class.path}
 * loader), so Iceberg's JDBC catalog inside that loader finds no driver for its URL; once the
 * plugin registers the drivers its loader sees, the same catalog reaches the driver. The PostgreSQL
 * driver jar is not on this JVM's class path (the build copies it to target/plugin-drivers and
 * leaves it off the test class path), so nothing but the registration can make it known.
 */
class JdbcDriversTest {
  @TempDir Path dir;

  @BeforeAll
  static void driverManagerIsInitialisedFirst() throws SQLException {
    // As on a broker where something touched DriverManager before Kafka loaded the plugin.
    DriverManager.getDrivers();
    assertThatThrownBy(() -> DriverManager.getDriver("jdbc:postgresql://127.0.0.1:5432/floe"))
        .as("the PostgreSQL driver must not be on the test class path")
        .isInstanceOf(SQLException.class);
  }

  @Test
  void theCatalogFindsThePluginsDriverOnlyOnceItIsRegistered() throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/floe";
    try (PluginClassLoader plugin = pluginLoader()) {
      assertThatThrownBy(() -> initializeJdbcCatalog(plugin, url))
          .hasStackTraceContaining("No suitable driver found for " + url);

      assertThat(JdbcDrivers.registerVisibleTo(plugin))
          .anyMatch(d -> d.startsWith("org.postgresql.Driver "));

      // Now DriverManager hands the catalog the PostgreSQL driver, which tries the server: nothing
      // listens on that port, so the driver (not DriverManager) reports the connection refused.
      assertThatThrownBy(() -> initializeJdbcCatalog(plugin, url))
          .satisfies(
              e -> {
                assertThat(rootCause(e).getClass().getName())
                    .isEqualTo("java.net.ConnectException");
                assertThat(e).hasStackTraceContaining("org.postgresql.util.PSQLException");
                assertThat(e).hasStackTraceContaining("refused");
                assertThat(e.toString() + stackTrace(e)).doesNotContain("No suitable driver");
              });
    }
  }

  @Test
  void eachDriverClassIsRegisteredOnce() throws Exception {
    try (PluginClassLoader plugin = pluginLoader()) {
      assertThat(JdbcDrivers.registerVisibleTo(plugin))
          .anyMatch(d -> d.startsWith("org.postgresql.Driver "));
      long before = DriverManager.drivers().count();

      assertThat(JdbcDrivers.registerVisibleTo(plugin)).isEmpty();
      assertThat(DriverManager.drivers().count()).isEqualTo(before);
    }
  }

  @Test
  void aBrokenProviderIsSkippedAndTheOthersRegistered() throws Exception {
    Path services = dir.resolve("broken/META-INF/services/java.sql.Driver");
    Files.createDirectories(services.getParent());
    Files.writeString(services, "io.floe.missing.NoSuchDriver\n");
    try (PluginClassLoader plugin = pluginLoader(dir.resolve("broken").toUri().toURL())) {
      List<String> registered = JdbcDrivers.registerVisibleTo(plugin);

      assertThat(registered).anyMatch(d -> d.startsWith("org.postgresql.Driver "));
      assertThat(registered).noneMatch(d -> d.contains("NoSuchDriver"));
    }
  }

  /** Builds Iceberg's JdbcCatalog inside the plugin loader, as the plugin does on a broker. */
  private static void initializeJdbcCatalog(ClassLoader plugin, String url) throws Throwable {
    Map<String, String> props = new HashMap<>();
    props.put("uri", url);
    props.put("warehouse", "file:///tmp/floe-unused-warehouse");
    props.put("io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO");
    props.put("jdbc.schema-version", "V1");
    Class<?> catalogClass = plugin.loadClass(JdbcCatalog.class.getName());
    assertThat(catalogClass.getClassLoader()).isSameAs(plugin);
    Object catalog = catalogClass.getConstructor().newInstance();
    try {
      catalogClass.getMethod("initialize", String.class, Map.class).invoke(catalog, "floe", props);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    catalogClass.getMethod("close").invoke(catalog);
  }

  /** Iceberg and the PostgreSQL driver in a child-first loader over this JVM's class loader. */
  private static PluginClassLoader pluginLoader(URL... extra) throws IOException {
    List<URL> urls = new ArrayList<>();
    for (Class<?> c :
        List.of(JdbcCatalog.class, Schema.class, DynConstructors.class, ImmutableMap.class)) {
      urls.add(c.getProtectionDomain().getCodeSource().getLocation());
    }
    Path drivers = Path.of(System.getProperty("floe.test.plugin-drivers", "target/plugin-drivers"));
    try (Stream<Path> jars = Files.list(drivers)) {
      for (Path jar :
          jars.filter(p -> p.getFileName().toString().startsWith("postgresql-")).toList()) {
        urls.add(jar.toUri().toURL());
      }
    }
    assertThat(urls).as("iceberg jars and the PostgreSQL driver jar").hasSize(5);
    urls.addAll(List.of(extra));
    return new PluginClassLoader(urls.toArray(URL[]::new), JdbcDriversTest.class.getClassLoader());
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  private static String stackTrace(Throwable e) {
    StringWriter out = new StringWriter();
    e.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  /** Child first, like the loader Kafka builds from remote.log.storage.manager.class.path. */
  private static final class PluginClassLoader extends URLClassLoader {
    static {
      ClassLoader.registerAsParallelCapable();
    }

    PluginClassLoader(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          try {
            c = findClass(name);
          } catch (ClassNotFoundException e) {
            c = super.loadClass(name, false);
          }
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }

    @Override
    public URL getResource(String name) {
      URL own = findResource(name);
      return own != null ? own : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
      ClassLoader parent = getParent();
      if (parent != null) {
        all.addAll(Collections.list(parent.getResources(name)));
      }
      return Collections.enumeration(all);
    }
  }
}
