package io.floe.headview;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The head view service: a read-only Iceberg REST catalog in front of the real catalog. Topic
 * tables are served as committed snapshot + live Kafka head (see {@link HeadView}); every other
 * table and namespace passes through unchanged. Responses are Iceberg's own REST model ({@link
 * CatalogHandlers}, serialized with Iceberg's REST serializers). Start: {@code java -cp CP
 * io.floe.headview.HeadViewServer --config head-view.properties}.
 */
public final class HeadViewServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeadViewServer.class);
  private static final String NAMESPACE_SEPARATOR = "%1F";

  /** Read endpoints this service implements, plus the writes it answers (with a refusal). */
  static final List<Endpoint> ENDPOINTS =
      List.of(
          Endpoint.V1_LIST_NAMESPACES,
          Endpoint.V1_LOAD_NAMESPACE,
          Endpoint.V1_NAMESPACE_EXISTS,
          Endpoint.V1_LIST_TABLES,
          Endpoint.V1_LOAD_TABLE,
          Endpoint.V1_TABLE_EXISTS,
          // Listed so that a client sends a write here and gets "read-only, write through
          // <catalog>" rather than
          // a generic "server does not support endpoint": each of these answers 405.
          Endpoint.V1_CREATE_NAMESPACE,
          Endpoint.V1_UPDATE_NAMESPACE,
          Endpoint.V1_DELETE_NAMESPACE,
          Endpoint.V1_CREATE_TABLE,
          Endpoint.V1_UPDATE_TABLE,
          Endpoint.V1_DELETE_TABLE,
          Endpoint.V1_RENAME_TABLE,
          Endpoint.V1_REGISTER_TABLE,
          Endpoint.V1_COMMIT_TRANSACTION);

  static {
    // The JDK's HttpServer sends headers and body in separate writes: without TCP_NODELAY, Nagle's
    // algorithm and the
    // client's delayed ACK add ~40 ms to every response. Read once, when the first HttpServer is
    // created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HeadViewConfig config;
  private final Catalog catalog;
  private final KafkaHead kafka;
  private final HeadView view;
  private final HttpServer http;
  private final ExecutorService executor;
  private final byte[] tokenBytes;

  private HeadViewServer(HeadViewConfig config, Catalog catalog) throws IOException {
    this.config = config;
    this.catalog = catalog;
    this.kafka = new KafkaHead(config.kafkaProperties(), config.kafkaTimeoutMs());
    this.view = new HeadView(catalog, kafka, config);
    this.tokenBytes =
        config.authToken() == null ? null : config.authToken().getBytes(StandardCharsets.UTF_8);
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            config.serverThreads(),
            r -> {
              Thread t = new Thread(r, "floe-head-view-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.http =
        HttpServer.create(new InetSocketAddress(config.listenHost(), config.listenPort()), 64);
    http.createContext("/", this::handle);
    http.setExecutor(executor);
  }

  /**
   * Builds the backing catalog from the iceberg.* properties (as the plugin does) and starts
   * listening.
   */
  public static HeadViewServer start(HeadViewConfig config) throws IOException {
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog(
            config.catalogName(), config.catalogProperties(), new Configuration());
    HeadViewServer server;
    try {
      server = new HeadViewServer(config, catalog);
    } catch (IOException | RuntimeException e) {
      closeQuietly(catalog);
      throw e;
    }
    server.http.start();
    LOG.info("Floe head view listening on {} ({})", server.uri(), config);
    return server;
  }

  public static void main(String[] args) throws Exception {
    Path configFile = null;
    for (int i = 0; i < args.length; i++) {
      if ("--config".equals(args[i]) && i + 1 < args.length) {
        configFile = Path.of(args[++i]);
      }
    }
    if (configFile == null) {
      System.err.println(
          "Usage: java -cp CLASSPATH io.floe.headview.HeadViewServer --config head-view.properties");
      System.exit(2);
    }
    HeadViewServer server = start(HeadViewConfig.load(configFile));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "floe-head-view-shutdown"));
    Thread.currentThread().join();
  }

  public int port() {
    return http.getAddress().getPort();
  }

  /** The base URI a REST catalog client's {@code uri} property takes. */
  public String uri() {
    return "http://" + http.getAddress().getHostString() + ":" + port();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      try (InputStream in = exchange.getRequestBody()) {
        in.readAllBytes();
      }
      if (!authorized(exchange)) {
        error(exchange, 401, new NotAuthorizedException("Missing or wrong bearer token"));
        return;
      }
      route(exchange);
    } catch (RuntimeException e) {
      LOG.warn(
          "{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), e);
      try {
        error(exchange, 500, e);
      } catch (IOException | RuntimeException ignored) {
        // the response was started already
      }
    } finally {
      exchange.close();
    }
  }

  private boolean authorized(HttpExchange exchange) {
    if (tokenBytes == null) {
      return true;
    }
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(
        tokenBytes, header.substring(7).trim().getBytes(StandardCharsets.UTF_8));
  }

  private void route(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    List<String> parts = new ArrayList<>(Arrays.asList(path.split("/")));
    parts.removeIf(String::isEmpty);
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());

    if (!method.equals("GET") && !method.equals("HEAD")) {
      error(exchange, 405, readOnly(method, path));
      return;
    }
    try {
      if (parts.size() == 2 && parts.get(0).equals("v1") && parts.get(1).equals("config")) {
        json(
            exchange,
            200,
            ConfigResponse.builder()
                .withDefaults(new HashMap<>(config.clientDefaults()))
                .withEndpoints(ENDPOINTS)
                .build());
      } else if (parts.size() == 2
          && parts.get(0).equals("v1")
          && parts.get(1).equals("namespaces")) {
        Namespace parent =
            query.containsKey("parent")
                ? RESTUtil.namespaceFromQueryParam(query.get("parent"))
                : Namespace.empty();
        json(
            exchange,
            200,
            query.get("pageSize") == null
                ? CatalogHandlers.listNamespaces(namespaces(), parent)
                : CatalogHandlers.listNamespaces(
                    namespaces(), parent, query.get("pageToken"), query.get("pageSize")));
      } else if (parts.size() == 3
          && parts.get(0).equals("v1")
          && parts.get(1).equals("namespaces")) {
        Namespace ns = RESTUtil.decodeNamespace(parts.get(2), NAMESPACE_SEPARATOR);
        if (method.equals("HEAD")) {
          CatalogHandlers.namespaceExists(namespaces(), ns);
          empty(exchange, 204);
        } else {
          json(exchange, 200, CatalogHandlers.loadNamespace(namespaces(), ns));
        }
      } else if (parts.size() == 4 && parts.get(0).equals("v1") && parts.get(3).equals("tables")) {
        Namespace ns = RESTUtil.decodeNamespace(parts.get(2), NAMESPACE_SEPARATOR);
        if (query.get("pageSize") == null) {
          json(exchange, 200, view.listTables(ns));
        } else {
          json(
              exchange,
              200,
              CatalogHandlers.listTables(
                  catalog, ns, query.get("pageToken"), query.get("pageSize")));
        }
      } else if (parts.size() == 5 && parts.get(0).equals("v1") && parts.get(3).equals("tables")) {
        TableIdentifier id =
            TableIdentifier.of(
                RESTUtil.decodeNamespace(parts.get(2), NAMESPACE_SEPARATOR),
                RESTUtil.decodeString(parts.get(4)));
        if (method.equals("HEAD")) {
          view.tableExists(id);
          empty(exchange, 204);
        } else {
          LoadTimings timings = new LoadTimings();
          LoadTableResponse response = view.loadTable(id, timings);
          byte[] body = RestJson.write(response);
          timings.mark("json");
          exchange.getResponseHeaders().set("Server-Timing", timings.header());
          send(exchange, 200, body);
        }
      } else {
        error(
            exchange,
            404,
            new NoSuchEndpoint(method + " " + path + " is not served by the Floe head view"));
      }
    } catch (NoSuchNamespaceException | NoSuchTableException | NoSuchEndpoint e) {
      error(exchange, 404, e);
    } catch (IllegalArgumentException e) {
      error(exchange, 400, e);
    } catch (ServiceUnavailableException e) {
      LOG.warn("{} {}: {}", method, path, e.getMessage());
      error(exchange, 503, e);
    } catch (ForbiddenException | AlreadyExistsException e) {
      error(exchange, 403, e);
    }
  }

  private SupportsNamespaces namespaces() {
    if (catalog instanceof SupportsNamespaces ns) {
      return ns;
    }
    throw new IllegalArgumentException(
        "The backing catalog " + catalog.name() + " has no namespaces");
  }

  private ReadOnlyException readOnly(String method, String path) {
    return new ReadOnlyException(
        "The Floe head view is read-only: "
            + method
            + " "
            + path
            + " is refused. Write through the backing catalog"
            + " '"
            + config.catalogName()
            + "' ("
            + catalogDescription()
            + ") instead; Kafka topics are written by"
            + " producing to Kafka.");
  }

  private String catalogDescription() {
    Map<String, String> p = config.catalogProperties();
    String kind = p.getOrDefault("type", p.getOrDefault("catalog-impl", "?"));
    String uri = p.get("uri");
    // A JDBC or REST URI can carry credentials in its query or user info: show scheme and host part
    // only.
    if (uri != null) {
      int q = uri.indexOf('?');
      uri = q >= 0 ? uri.substring(0, q) : uri;
      uri = uri.replaceAll("//[^/@]*@", "//");
    }
    return uri == null ? "type " + kind : "type " + kind + ", uri " + uri;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      out.put(k, v);
    }
    return out;
  }

  private static void json(HttpExchange exchange, int status, Object body) throws IOException {
    send(exchange, status, RestJson.write(body));
  }

  private static void send(HttpExchange exchange, int status, byte[] bytes) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void empty(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
  }

  private static void error(HttpExchange exchange, int status, Exception e) throws IOException {
    String type =
        e instanceof ReadOnlyException ? "ReadOnlyViewException" : e.getClass().getSimpleName();
    ErrorResponse body =
        ErrorResponse.builder()
            .responseCode(status)
            .withType(type)
            .withMessage(e.getMessage())
            .build();
    json(exchange, status, body);
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
    view.close();
    kafka.close();
    closeQuietly(catalog);
  }

  private static void closeQuietly(Catalog catalog) {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("Closing the catalog failed", e);
      }
    }
  }

  private static final class ReadOnlyException extends RuntimeException {
    ReadOnlyException(String message) {
      super(message);
    }
  }

  private static final class NoSuchEndpoint extends RuntimeException {
    NoSuchEndpoint(String message) {
      super(message);
    }
  }
}
