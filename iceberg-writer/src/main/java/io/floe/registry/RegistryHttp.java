package io.floe.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET requests to a Confluent-compatible registry: failover across the configured URLs, bounded
 * retries of transient failures with doubling backoff, each request bounded by the timeout, and the
 * cooldown after the registry was found unreachable. Messages name URLs, never credentials.
 */
final class RegistryHttp {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryHttp.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ACCEPT =
      "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, "
          + "application/json";

  private final List<URI> urls;
  private final String authorization;
  private final HttpClient client;
  private final long timeoutMs;
  private final int retries;
  private final long backoffMs;
  private final long cooldownNanos;

  /** The URL that answered last: the first one tried by the next request. */
  private final AtomicInteger preferred = new AtomicInteger();

  private volatile long unavailableUntilNanos;
  private volatile boolean inCooldown;
  private volatile String lastFailure = "";
  private volatile boolean refused;

  RegistryHttp(RegistryConfig config) {
    this.urls = config.urls();
    this.authorization = config.authorization();
    this.timeoutMs = config.requestTimeoutMs();
    this.retries = config.retries();
    this.backoffMs = config.retryBackoffMs();
    this.cooldownNanos = TimeUnit.MILLISECONDS.toNanos(config.unavailableCooldownMs());
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofMillis(timeoutMs));
    if (config.truststoreLocation() != null) {
      builder.sslContext(
          RegistryTls.sslContext(
              config.truststoreLocation(), config.truststorePassword(), config.truststoreType()));
    }
    this.client = builder.build();
  }

  /**
   * The JSON body of a 200 answer to {@code GET path}.
   *
   * @param path the encoded path under a base URL, starting with a slash
   * @param what what is looked up, for messages ("schema id 7")
   */
  JsonNode get(String path, String what) {
    failFastDuringCooldown(what);
    List<String> failures = new ArrayList<>();
    int first = preferred.get();
    Exception last = null;
    for (int attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        pause(backoffMs << (attempt - 1), what, failures);
      }
      int index = (first + attempt) % urls.size();
      URI url = URI.create(urls.get(index) + path);
      try {
        HttpResponse<byte[]> response = send(url);
        int status = response.statusCode();
        if (status == 200) {
          preferred.set(index);
          inCooldown = false;
          return parse(url, response.body());
        }
        if (!transientStatus(status)) {
          RegistryException failure = permanent(url, status, response.body(), what);
          if (failure instanceof RegistryAuthException) {
            coolDown(failure.getMessage(), true);
          }
          throw failure;
        }
        failures.add(url + ": HTTP " + status);
      } catch (IOException | TimeoutException e) {
        last = e;
        failures.add(url + ": " + describe(e));
      }
    }
    coolDown(failures.get(failures.size() - 1), false);
    String message =
        "Schema registry unavailable: "
            + what
            + " could not be looked up after "
            + failures.size()
            + " attempt(s) "
            + failures
            + "; lookups of uncached schemas fail without a request for "
            + TimeUnit.NANOSECONDS.toMillis(cooldownNanos)
            + " ms ("
            + RegistryConfig.UNAVAILABLE_COOLDOWN_MS_CONFIG
            + ")";
    LOG.warn(message);
    throw new RegistryUnavailableException(message, last);
  }

  /**
   * Fails at once, without a request, while the registry is cooling down after it could not be
   * reached or refused the credentials: failing lookups never pile up on a registry in trouble.
   */
  private void failFastDuringCooldown(String what) {
    long now = System.nanoTime();
    if (!inCooldown || now - unavailableUntilNanos >= 0) {
      return;
    }
    String message =
        "Schema registry "
            + urls
            + (refused ? " refused the credentials: " : " is unavailable: ")
            + what
            + " not looked up, no request made (the last lookup failed: "
            + lastFailure
            + "; the registry is not contacted for another "
            + TimeUnit.NANOSECONDS.toMillis(unavailableUntilNanos - now)
            + " ms, "
            + RegistryConfig.UNAVAILABLE_COOLDOWN_MS_CONFIG
            + ")";
    throw refused
        ? new RegistryAuthException(message)
        : new RegistryUnavailableException(message, null);
  }

  private void coolDown(String failure, boolean refusedCredentials) {
    lastFailure = failure;
    refused = refusedCredentials;
    unavailableUntilNanos = System.nanoTime() + cooldownNanos;
    inCooldown = cooldownNanos > 0;
  }

  private HttpResponse<byte[]> send(URI url) throws IOException, TimeoutException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .GET()
            .timeout(Duration.ofMillis(timeoutMs))
            .header("Accept", ACCEPT);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    CompletableFuture<HttpResponse<byte[]>> future =
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    try {
      // The request timeout of the JDK client stops at the response headers; this bounds the body.
      return future.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw e;
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException(
          "Interrupted while waiting for the schema registry at " + url, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    }
  }

  private void pause(long ms, String what, List<String> failures) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException(
          "Interrupted while retrying " + what + " at the schema registry " + failures, e);
    }
  }

  private static boolean transientStatus(int status) {
    return status >= 500 || status == 429 || status == 408;
  }

  private RegistryException permanent(URI url, int status, byte[] body, String what) {
    String detail = errorDetail(body);
    if (status == 404) {
      return new SchemaNotFoundException(
          "Schema registry at " + url + " has no " + what + " (HTTP 404" + detail + ")");
    }
    if (status == 401 || status == 403) {
      return new RegistryAuthException(
          "Schema registry at "
              + url
              + (authorization == null
                  ? " requires credentials and none are configured ("
                      + RegistryConfig.BASIC_AUTH_USER_INFO_CONFIG
                      + " or "
                      + RegistryConfig.BEARER_TOKEN_CONFIG
                      + ")"
                  : " refused the configured credentials")
              + " (HTTP "
              + status
              + ")");
    }
    return new RegistryException(
        "Schema registry at "
            + url
            + " rejected the lookup of "
            + what
            + " (HTTP "
            + status
            + detail
            + ")");
  }

  /** The registry's error code and message, when the body is the Confluent error JSON. */
  private static String errorDetail(byte[] body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node != null && node.has("error_code")) {
        return ", error_code "
            + node.get("error_code").asInt()
            + ": "
            + node.path("message").asText("");
      }
    } catch (IOException e) {
      // not the registry's error JSON: the status says enough
    }
    return "";
  }

  private static JsonNode parse(URI url, byte[] body) {
    JsonNode node;
    try {
      node = JSON.readTree(body);
    } catch (IOException e) {
      node = null;
    }
    if (node == null || !node.isObject()) {
      throw new RegistryException("Schema registry at " + url + " answered something not JSON");
    }
    return node;
  }

  private String describe(Exception e) {
    if (e instanceof TimeoutException || e instanceof HttpTimeoutException) {
      return "no answer within " + timeoutMs + " ms";
    }
    String name = e.getClass().getSimpleName();
    return e.getMessage() == null ? name : name + " " + e.getMessage();
  }
}
