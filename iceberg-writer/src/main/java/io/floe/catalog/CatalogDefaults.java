package io.floe.catalog;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;

/**
 * Catalog properties Floe sets unless the user set them. Every copy plans against, validates
 * against and commits on top of the manifests and manifest lists of the latest snapshots; they are
 * immutable, so caching their content in the catalog's FileIO saves reading each of them once per
 * copy. Iceberg's scan and commit reports go to {@link DebugMetricsReporter} instead of INFO.
 *
 * <p>Every wait on the object store and the catalog gets a bound: the clients' own defaults wait
 * minutes or for ever (S3: 5 retries with up to 20 s between them; PostgreSQL: no socket timeout,
 * so a statement behind a lock waits as long as the lock is held; REST: HttpClient's three-minute
 * connect timeout and no read timeout), and each of those waits holds a broker thread.
 */
public final class CatalogDefaults {
  static final long MANIFEST_CACHE_BYTES = 32L << 20;

  /** S3 retries after the first attempt (Iceberg's default: 5). */
  public static final int S3_RETRIES = 3;

  /** Longest backoff between S3 attempts after a throttling answer (Iceberg's default: 20 s). */
  public static final long S3_RETRY_MAX_WAIT_MS = 5_000;

  static final long S3_RETRY_MIN_WAIT_MS = 500;

  /** How long an S3 connection may take to open. */
  public static final long HTTP_CONNECTION_TIMEOUT_MS = 5_000;

  /** How long an S3 request waits for each read of its answer. */
  public static final long HTTP_SOCKET_TIMEOUT_MS = 10_000;

  static final long HTTP_CONNECTION_ACQUISITION_TIMEOUT_MS = 10_000;

  /** PostgreSQL JDBC driver settings, in seconds as the driver takes them. */
  static final int PG_CONNECT_TIMEOUT_S = 5;

  static final int PG_LOGIN_TIMEOUT_S = 10;
  static final int PG_SOCKET_TIMEOUT_S = 30;

  static final long REST_CONNECTION_TIMEOUT_MS = 10_000;
  static final long REST_SOCKET_TIMEOUT_MS = 30_000;

  private CatalogDefaults() {}

  /** {@code properties} plus the defaults it does not override. */
  public static Map<String, String> apply(Map<String, String> properties) {
    Map<String, String> out = new HashMap<>(properties);
    out.putIfAbsent(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true");
    out.putIfAbsent(
        CatalogProperties.IO_MANIFEST_CACHE_MAX_TOTAL_BYTES, Long.toString(MANIFEST_CACHE_BYTES));
    out.putIfAbsent(CatalogProperties.METRICS_REPORTER_IMPL, DebugMetricsReporter.class.getName());
    boundStorageWaits(out);
    boundCatalogWaits(out);
    return out;
  }

  /**
   * S3FileIO (also as ResolvingFileIO's choice for s3:// locations): fewer, shorter retries, and
   * connect and read timeouts for both HTTP clients Iceberg can use (Apache's, the default, and the
   * JDK's URL connection).
   */
  private static void boundStorageWaits(Map<String, String> out) {
    out.putIfAbsent("s3.retry.num-retries", Integer.toString(S3_RETRIES));
    out.putIfAbsent("s3.retry.min-wait-ms", Long.toString(S3_RETRY_MIN_WAIT_MS));
    out.putIfAbsent("s3.retry.max-wait-ms", Long.toString(S3_RETRY_MAX_WAIT_MS));
    out.putIfAbsent(
        "http-client.apache.connection-timeout-ms", Long.toString(HTTP_CONNECTION_TIMEOUT_MS));
    out.putIfAbsent("http-client.apache.socket-timeout-ms", Long.toString(HTTP_SOCKET_TIMEOUT_MS));
    out.putIfAbsent(
        "http-client.apache.connection-acquisition-timeout-ms",
        Long.toString(HTTP_CONNECTION_ACQUISITION_TIMEOUT_MS));
    out.putIfAbsent(
        "http-client.urlconnection.connection-timeout-ms",
        Long.toString(HTTP_CONNECTION_TIMEOUT_MS));
    out.putIfAbsent(
        "http-client.urlconnection.socket-timeout-ms", Long.toString(HTTP_SOCKET_TIMEOUT_MS));
  }

  /**
   * The PostgreSQL driver's timeouts (only for PostgreSQL URLs: other drivers read the same names
   * in other units, MySQL's in milliseconds) unless the URL sets them; the REST client's.
   */
  private static void boundCatalogWaits(Map<String, String> out) {
    String uri = out.getOrDefault(CatalogProperties.URI, "");
    if (uri.startsWith("jdbc:postgresql:")) {
      String lower = uri.toLowerCase(Locale.ROOT);
      putUnlessInUrl(out, lower, "connectTimeout", PG_CONNECT_TIMEOUT_S);
      putUnlessInUrl(out, lower, "loginTimeout", PG_LOGIN_TIMEOUT_S);
      putUnlessInUrl(out, lower, "socketTimeout", PG_SOCKET_TIMEOUT_S);
    }
    out.putIfAbsent("rest.client.connection-timeout-ms", Long.toString(REST_CONNECTION_TIMEOUT_MS));
    out.putIfAbsent("rest.client.socket-timeout-ms", Long.toString(REST_SOCKET_TIMEOUT_MS));
  }

  private static void putUnlessInUrl(
      Map<String, String> out, String lowerCaseUrl, String driverKey, long value) {
    if (!lowerCaseUrl.contains(driverKey.toLowerCase(Locale.ROOT) + "=")) {
      out.putIfAbsent("jdbc." + driverKey, Long.toString(value));
    }
  }
}
