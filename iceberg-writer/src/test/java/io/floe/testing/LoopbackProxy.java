package io.floe.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;

/**
 * An HTTP (or, with an {@link SSLContext}, HTTPS) server on 127.0.0.1 that forwards every request
 * to a target base URL and records the requests it saw: what a test counts requests with, checks
 * the {@code Authorization} header with (answering 401 when it is not the expected one), terminates
 * TLS with, or makes answer an error status instead of forwarding.
 */
public final class LoopbackProxy implements AutoCloseable {
  /** One request as the proxy saw it. */
  public record Seen(String method, String path, String authorization) {}

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final HttpClient client = HttpClient.newHttpClient();
  private final String target;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private volatile String requiredAuthorization;
  private volatile int failWith;

  private LoopbackProxy(String target, SSLContext tls) throws IOException {
    this.target = target;
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    if (tls == null) {
      this.server = HttpServer.create(address, 0);
    } else {
      HttpsServer https = HttpsServer.create(address, 0);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      this.server = https;
    }
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** A plain HTTP proxy in front of {@code target} (a base URL without a trailing slash). */
  public static LoopbackProxy http(String target) {
    return start(target, null);
  }

  /** An HTTPS proxy with the certificate of {@code tls} in front of {@code target}. */
  public static LoopbackProxy https(String target, SSLContext tls) {
    return start(target, tls);
  }

  private static LoopbackProxy start(String target, SSLContext tls) {
    try {
      return new LoopbackProxy(target, tls);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The base URL that reaches {@code target}: the same path under this proxy. */
  public String url() {
    URI t = URI.create(target);
    String scheme = server instanceof HttpsServer ? "https" : "http";
    return scheme + "://127.0.0.1:" + server.getAddress().getPort() + t.getRawPath();
  }

  /** Requests whose {@code Authorization} header is not {@code value} get a 401. */
  public LoopbackProxy requireAuthorization(String value) {
    this.requiredAuthorization = value;
    return this;
  }

  /** Every request gets {@code status} (0: forward again). */
  public LoopbackProxy failWith(int status) {
    this.failWith = status;
    return this;
  }

  public List<Seen> seen() {
    return List.copyOf(seen);
  }

  public int requests() {
    return seen.size();
  }

  public void reset() {
    seen.clear();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      String pathAndQuery = exchange.getRequestURI().getRawPath();
      if (exchange.getRequestURI().getRawQuery() != null) {
        pathAndQuery += "?" + exchange.getRequestURI().getRawQuery();
      }
      seen.add(new Seen(exchange.getRequestMethod(), pathAndQuery, auth));
      byte[] requestBody;
      try (InputStream in = exchange.getRequestBody()) {
        requestBody = in.readAllBytes();
      }
      if (failWith != 0) {
        respond(exchange, failWith, "{\"error_code\":" + failWith + "00,\"message\":\"failing\"}");
        return;
      }
      String required = requiredAuthorization;
      if (required != null && !required.equals(auth)) {
        respond(exchange, 401, "{\"error_code\":40101,\"message\":\"Unauthorized\"}");
        return;
      }
      String base = URI.create(target).getScheme() + "://" + URI.create(target).getRawAuthority();
      HttpRequest.Builder forward =
          HttpRequest.newBuilder(URI.create(base + pathAndQuery))
              .method(
                  exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(requestBody));
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      if (contentType != null) {
        forward.header("Content-Type", contentType);
      }
      HttpResponse<byte[]> response =
          client.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      response
          .headers()
          .firstValue("Content-Type")
          .ifPresent(v -> exchange.getResponseHeaders().set("Content-Type", v));
      send(exchange, response.statusCode(), response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      respond(exchange, 502, "{\"error_code\":50200,\"message\":\"upstream unreachable\"}");
    }
  }

  private static void respond(HttpExchange exchange, int status, String json) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    send(exchange, status, json.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
