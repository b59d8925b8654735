package io.floe.headview;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.floe.catalog.CatalogStartup;
import io.floe.catalog.HadoopConf;
import io.floe.headview.Route.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The head view service: a read-only Iceberg REST catalog in front of the real catalog, over the
 * JDK's HTTP server. This class is the transport: it checks the bearer token, hands each request to
 * the route table ({@link HeadViewRoutes}) and sends the answer; topic tables are served as
 * committed snapshot + live Kafka head (see {@link HeadView}), every other table and namespace
 * passes through unchanged. Start: {@code java -cp CP io.floe.headview.HeadViewServer --config
 * head-view.properties}.
 */
public final class HeadViewServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeadViewServer.class);

  static {
    // The JDK's HttpServer sends headers and body in separate writes: without TCP_NODELAY, Nagle's
    // algorithm and the client's delayed ACK add ~40 ms to every response. Read once, when the
    // first HttpServer is created.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final Catalog catalog;
  private final KafkaHead kafka;
  private final HeadView view;
  private final HeadViewRoutes routes;
  private final HttpServer http;
  private final ExecutorService executor;
  private final byte[] tokenBytes;
  private final long shutdownTimeoutMs;
  private final AtomicBoolean closed = new AtomicBoolean();

  private HeadViewServer(HeadViewConfig config, Catalog catalog) throws IOException {
    this.catalog = catalog;
    this.kafka = new KafkaHead(config.kafkaProperties(), config.kafkaTimeoutMs());
    this.view = new HeadView(catalog, kafka, config);
    this.routes =
        new HeadViewRoutes(catalog, view, config.clientDefaults(), config.catalogDescription());
    this.tokenBytes =
        config.authToken() == null ? null : config.authToken().getBytes(StandardCharsets.UTF_8);
    this.shutdownTimeoutMs = config.shutdownTimeoutMs();
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
        CatalogStartup.build(config.catalogName(), config.catalogProperties(), HadoopConf.create());
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
        send(
            exchange,
            HeadViewRoutes.error(401, new NotAuthorizedException("Missing or wrong bearer token")));
        return;
      }
      send(
          exchange,
          routes.dispatch(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              query(exchange.getRequestURI().getRawQuery())));
    } catch (RuntimeException e) {
      LOG.warn(
          "{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), e);
      try {
        send(exchange, HeadViewRoutes.error(500, e));
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

  /**
   * Sends a reply: a body as JSON, except to a HEAD request, which gets status and headers only.
   */
  private static void send(HttpExchange exchange, Reply reply) throws IOException {
    reply.headers().forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    if (reply.body() == null) {
      exchange.sendResponseHeaders(reply.status(), -1);
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(reply.status(), -1);
      return;
    }
    exchange.sendResponseHeaders(reply.status(), reply.body().length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(reply.body());
    }
  }

  /**
   * Stops within {@code shutdown.timeout.ms}: stops listening, then on a thread of its own deletes
   * this process's head files (each object-store request tried once, see {@link StopFileIO}),
   * closes the Kafka clients and the catalog. Whatever is not done when the bound is over is left
   * to the JVM's exit, and the head files not deleted are logged with their folders; a head view
   * started later deletes them (see {@link LeftoverHeads}).
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long started = System.nanoTime();
    long bound = TimeUnit.MILLISECONDS.toNanos(shutdownTimeoutMs);
    http.stop(0);
    executor.shutdownNow();
    StopCleanup cleanup = view.stop();
    LOG.info(
        "Stopping the head view (shutdown.timeout.ms={}): deleting {} head objects in {} folder(s),"
            + " then closing the Kafka clients and the catalog",
        shutdownTimeoutMs,
        cleanup.objects(),
        cleanup.folders());
    // Each delete request is bounded (connecting, then the answer), and the last one started
    // must end before the bound: S3FileIO's delete pool holds up the JVM's exit until it does.
    long requestMs = Math.max(100, Math.min(2_000, shutdownTimeoutMs / 5));
    long deletesUntil = started + bound - TimeUnit.MILLISECONDS.toNanos(2 * requestMs);
    AtomicReference<String> step = new AtomicReference<>("deleting head files");
    Thread stopper =
        new Thread(
            () -> {
              if (shutdownTimeoutMs > 0) {
                cleanup.run(deletesUntil, requestMs);
              }
              cleanup.logOutcome(elapsedMs(started));
              step.set("closing the Kafka clients");
              kafka.close();
              step.set("closing the catalog");
              closeQuietly(catalog);
            },
            "floe-head-view-stop");
    stopper.setDaemon(true);
    stopper.start();
    try {
      stopper.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(started + bound - System.nanoTime())));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (stopper.isAlive()) {
      String behind = cleanup.leftBehind();
      LOG.warn(
          "shutdown.timeout.ms ({} ms) is over while {}: stopping anyway{}",
          shutdownTimeoutMs,
          step.get(),
          behind == null ? "" : "; " + behind);
    } else {
      LOG.info("Head view stopped in {} ms", elapsedMs(started));
    }
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
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
}
