package io.floe.testing;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Iceberg REST catalog server for tests: Apache Iceberg's own REST catalog servlet and
 * adapter ({@code RESTCatalogServlet} over {@code RESTCatalogAdapter}, test classes of
 * iceberg-core, exactly what Iceberg's {@code RESTCatalogServer} serves) in Jetty, bound to
 * 127.0.0.1 and a free port, in front of a backend catalog (a JdbcCatalog on PostgreSQL or SQLite)
 * that writes table metadata into the warehouse. Clients reach it through Iceberg's {@code
 * RESTCatalog}, as a broker configured with {@code iceberg.type=rest} does.
 *
 * <p>{@code RESTCatalogServer} itself is not used: it builds {@code new Server(port)}, which
 * listens on every interface, and these tests listen on the loopback address only.
 */
public final class LocalRestCatalog implements AutoCloseable {
  private final Catalog backend;
  private final Server server;
  private final URI uri;

  private LocalRestCatalog(Catalog backend, Server server, URI uri) {
    this.backend = backend;
    this.server = server;
    this.uri = uri;
  }

  /**
   * Starts a server whose backend catalog is built from {@code backendProperties} (catalog-impl or
   * type, uri, warehouse, io-impl and its settings).
   */
  public static LocalRestCatalog start(String name, Map<String, String> backendProperties) {
    quietServletLog();
    Catalog backend =
        CatalogUtil.buildIcebergCatalog(name, backendProperties, new Configuration(false));
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(
        new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    server.setHandler(context);
    try {
      server.start();
    } catch (Exception e) {
      closeQuietly(backend);
      throw new IllegalStateException("Could not start the REST catalog server", e);
    }
    URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    return new LocalRestCatalog(backend, server, uri);
  }

  public URI uri() {
    return uri;
  }

  /**
   * Client properties as a broker would set them ({@code type=rest}, {@code uri}), plus {@code
   * extra} (the client's own FileIO settings).
   */
  public Map<String, String> clientProperties(Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(extra);
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
    props.put(CatalogProperties.URI, uri.toString());
    return props;
  }

  @Override
  public void close() throws Exception {
    try {
      server.stop();
    } finally {
      closeQuietly(backend);
    }
  }

  private static void closeQuietly(Catalog catalog) {
    if (catalog instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * The servlet logs every answer that is not a success at ERROR with a stack trace, the 404 of a
   * table not created yet and the 409 of a commit that lost a race included; the client receives
   * each as an exception, so only the client's view is kept in the test log.
   */
  private static void quietServletLog() {
    try {
      Configurator.setLevel(RESTCatalogServlet.class.getName(), Level.OFF);
    } catch (LinkageError e) {
      // another logging backend: its own configuration decides
    }
  }

  @Override
  public String toString() {
    return "REST catalog at " + uri;
  }
}
