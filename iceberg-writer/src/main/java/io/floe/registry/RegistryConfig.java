package io.floe.registry;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The schema registry settings (keys under {@code registry.}), added to the plugin's and the head
 * view's {@link ConfigDef} by {@link #defineRegistry}, and read from the parsed configuration.
 * {@link #toString()} never shows a secret.
 */
public final class RegistryConfig {
  public static final String URL_CONFIG = "registry.url";
  public static final String BASIC_AUTH_USER_INFO_CONFIG = "registry.basic.auth.user.info";
  public static final String BEARER_TOKEN_CONFIG = "registry.bearer.token";
  public static final String SSL_TRUSTSTORE_LOCATION_CONFIG = "registry.ssl.truststore.location";
  public static final String SSL_TRUSTSTORE_PASSWORD_CONFIG = "registry.ssl.truststore.password";
  public static final String SSL_TRUSTSTORE_TYPE_CONFIG = "registry.ssl.truststore.type";
  public static final String REQUEST_TIMEOUT_MS_CONFIG = "registry.request.timeout.ms";
  public static final String RETRIES_CONFIG = "registry.retries";
  public static final String RETRY_BACKOFF_MS_CONFIG = "registry.retry.backoff.ms";
  public static final String UNAVAILABLE_COOLDOWN_MS_CONFIG = "registry.unavailable.cooldown.ms";
  public static final String LATEST_CACHE_MS_CONFIG = "registry.latest.cache.ms";
  public static final String CACHE_MAX_SCHEMAS_CONFIG = "registry.cache.max.schemas";

  public static final List<String> SSL_TRUSTSTORE_TYPES = List.of("PKCS12", "JKS");

  public static final String DEFAULT_SSL_TRUSTSTORE_TYPE = "PKCS12";
  public static final int DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
  public static final int DEFAULT_RETRIES = 2;
  public static final int DEFAULT_RETRY_BACKOFF_MS = 200;
  public static final long DEFAULT_UNAVAILABLE_COOLDOWN_MS = 10_000;
  public static final long DEFAULT_LATEST_CACHE_MS = 60_000;
  public static final int DEFAULT_CACHE_MAX_SCHEMAS = 10_000;

  private static final String BOUND =
      " One lookup (a schema and the schemas it references each count as one) takes at most ("
          + RETRIES_CONFIG
          + " + 1) x "
          + REQUEST_TIMEOUT_MS_CONFIG
          + " plus the backoffs ("
          + RETRY_BACKOFF_MS_CONFIG
          + " x (2^"
          + RETRIES_CONFIG
          + " - 1)): with the defaults 3 x 5 s + 0.6 s.";

  static final String URL_DOC =
      "Comma-separated base URLs of a Confluent-compatible schema registry (Confluent Schema Registry, "
          + "Karapace, Redpanda, Apicurio's /apis/ccompat/v7), http or https. When a request to one "
          + "fails, the next attempt goes to the next URL. Empty: no registry. User info in a URL is not allowed: use "
          + BASIC_AUTH_USER_INFO_CONFIG
          + ".";
  static final String BASIC_AUTH_USER_INFO_DOC =
      "user:password sent as HTTP Basic authentication to the registry. Mutually exclusive with "
          + BEARER_TOKEN_CONFIG
          + ".";
  static final String BEARER_TOKEN_DOC =
      "Token sent as 'Authorization: Bearer' to the registry. Mutually exclusive with "
          + BASIC_AUTH_USER_INFO_CONFIG
          + ".";
  static final String SSL_TRUSTSTORE_LOCATION_DOC =
      "Trust store file with the certificates that sign the registry's https certificate. Unset: "
          + "the JDK's default trust.";
  static final String SSL_TRUSTSTORE_PASSWORD_DOC = "Password of the trust store, if it has one.";
  static final String SSL_TRUSTSTORE_TYPE_DOC =
      "Trust store type: one of " + SSL_TRUSTSTORE_TYPES + ".";
  static final String REQUEST_TIMEOUT_MS_DOC =
      "Longest time one request to the registry may take, connection included." + BOUND;
  static final String RETRIES_DOC =
      "How many times a request that failed transiently (connection refused or reset, timeout, "
          + "HTTP 5xx or 429) is retried. Unknown schemas (404) and refused credentials (401, 403) "
          + "are never retried."
          + BOUND;
  static final String RETRY_BACKOFF_MS_DOC =
      "Wait before the first retry; each further retry waits twice as long as the previous one."
          + BOUND;
  static final String UNAVAILABLE_COOLDOWN_MS_DOC =
      "After a lookup failed because the registry could not be reached or refused the "
          + "credentials, lookups of schemas not in the cache fail at once, without contacting the "
          + "registry, for this long: a registry that is down never holds broker threads nor "
          + "receives a retry storm.";
  static final String LATEST_CACHE_MS_DOC =
      "How long the latest schema of a subject is reused before the registry is asked again, "
          + "and how long an id or subject the registry did not know is reported unknown without "
          + "asking it again. Schemas by id never change and stay cached. 0: never reused.";
  static final String CACHE_MAX_SCHEMAS_DOC =
      "Most schemas (by id, by subject version and latest by subject, each) kept in memory.";

  private final List<URI> urls;
  private final Password basicAuthUserInfo;
  private final Password bearerToken;
  private final String truststoreLocation;
  private final Password truststorePassword;
  private final String truststoreType;
  private final int requestTimeoutMs;
  private final int retries;
  private final int retryBackoffMs;
  private final long unavailableCooldownMs;
  private final long latestCacheMs;
  private final int cacheMaxSchemas;

  /**
   * Reads the registry keys of {@code config}, whose definition has them (see {@link
   * #defineRegistry}), and checks that at most one kind of authentication is set and that the trust
   * store exists.
   */
  public RegistryConfig(AbstractConfig config) {
    this.urls = parseUrls(config.getString(URL_CONFIG));
    this.basicAuthUserInfo = config.getPassword(BASIC_AUTH_USER_INFO_CONFIG);
    this.bearerToken = config.getPassword(BEARER_TOKEN_CONFIG);
    this.truststoreLocation = config.getString(SSL_TRUSTSTORE_LOCATION_CONFIG);
    this.truststorePassword = config.getPassword(SSL_TRUSTSTORE_PASSWORD_CONFIG);
    this.truststoreType = config.getString(SSL_TRUSTSTORE_TYPE_CONFIG).toUpperCase(Locale.ROOT);
    this.requestTimeoutMs = config.getInt(REQUEST_TIMEOUT_MS_CONFIG);
    this.retries = config.getInt(RETRIES_CONFIG);
    this.retryBackoffMs = config.getInt(RETRY_BACKOFF_MS_CONFIG);
    this.unavailableCooldownMs = config.getLong(UNAVAILABLE_COOLDOWN_MS_CONFIG);
    this.latestCacheMs = config.getLong(LATEST_CACHE_MS_CONFIG);
    this.cacheMaxSchemas = config.getInt(CACHE_MAX_SCHEMAS_CONFIG);
    if (basicAuthUserInfo != null && bearerToken != null) {
      throw new ConfigException(
          "Set either "
              + BASIC_AUTH_USER_INFO_CONFIG
              + " or "
              + BEARER_TOKEN_CONFIG
              + ", not both: they are two kinds of registry authentication");
    }
    if (truststoreLocation != null && !Files.isRegularFile(Path.of(truststoreLocation))) {
      throw new ConfigException(SSL_TRUSTSTORE_LOCATION_CONFIG, truststoreLocation, "no such file");
    }
  }

  /** Adds the {@code registry.*} keys. */
  public static ConfigDef defineRegistry(ConfigDef def) {
    return def.define(URL_CONFIG, Type.STRING, "", new UrlList(), Importance.HIGH, URL_DOC)
        .define(
            BASIC_AUTH_USER_INFO_CONFIG,
            Type.PASSWORD,
            null,
            new UserInfo(),
            Importance.MEDIUM,
            BASIC_AUTH_USER_INFO_DOC)
        .define(
            BEARER_TOKEN_CONFIG,
            Type.PASSWORD,
            null,
            new NonEmptyOrNull(),
            Importance.MEDIUM,
            BEARER_TOKEN_DOC)
        .define(
            SSL_TRUSTSTORE_LOCATION_CONFIG,
            Type.STRING,
            null,
            new NonEmptyOrNull(),
            Importance.MEDIUM,
            SSL_TRUSTSTORE_LOCATION_DOC)
        .define(
            SSL_TRUSTSTORE_PASSWORD_CONFIG,
            Type.PASSWORD,
            null,
            new NonEmptyOrNull(),
            Importance.MEDIUM,
            SSL_TRUSTSTORE_PASSWORD_DOC)
        .define(
            SSL_TRUSTSTORE_TYPE_CONFIG,
            Type.STRING,
            DEFAULT_SSL_TRUSTSTORE_TYPE,
            ConfigDef.CaseInsensitiveValidString.in(SSL_TRUSTSTORE_TYPES.toArray(String[]::new)),
            Importance.LOW,
            SSL_TRUSTSTORE_TYPE_DOC)
        .define(
            REQUEST_TIMEOUT_MS_CONFIG,
            Type.INT,
            DEFAULT_REQUEST_TIMEOUT_MS,
            Range.atLeast(1),
            Importance.LOW,
            REQUEST_TIMEOUT_MS_DOC)
        .define(
            RETRIES_CONFIG,
            Type.INT,
            DEFAULT_RETRIES,
            Range.between(0, 10),
            Importance.LOW,
            RETRIES_DOC)
        .define(
            RETRY_BACKOFF_MS_CONFIG,
            Type.INT,
            DEFAULT_RETRY_BACKOFF_MS,
            Range.atLeast(0),
            Importance.LOW,
            RETRY_BACKOFF_MS_DOC)
        .define(
            UNAVAILABLE_COOLDOWN_MS_CONFIG,
            Type.LONG,
            DEFAULT_UNAVAILABLE_COOLDOWN_MS,
            Range.atLeast(0L),
            Importance.LOW,
            UNAVAILABLE_COOLDOWN_MS_DOC)
        .define(
            LATEST_CACHE_MS_CONFIG,
            Type.LONG,
            DEFAULT_LATEST_CACHE_MS,
            Range.atLeast(0L),
            Importance.LOW,
            LATEST_CACHE_MS_DOC)
        .define(
            CACHE_MAX_SCHEMAS_CONFIG,
            Type.INT,
            DEFAULT_CACHE_MAX_SCHEMAS,
            Range.atLeast(1),
            Importance.LOW,
            CACHE_MAX_SCHEMAS_DOC);
  }

  /** Whether a registry is configured ({@code registry.url} not empty). */
  public boolean enabled() {
    return !urls.isEmpty();
  }

  public List<URI> urls() {
    return urls;
  }

  /** The {@code Authorization} header value, or null without authentication. */
  String authorization() {
    if (basicAuthUserInfo != null) {
      return "Basic "
          + Base64.getEncoder()
              .encodeToString(basicAuthUserInfo.value().getBytes(StandardCharsets.UTF_8));
    }
    return bearerToken != null ? "Bearer " + bearerToken.value() : null;
  }

  String truststoreLocation() {
    return truststoreLocation;
  }

  Password truststorePassword() {
    return truststorePassword;
  }

  String truststoreType() {
    return truststoreType;
  }

  public int requestTimeoutMs() {
    return requestTimeoutMs;
  }

  public int retries() {
    return retries;
  }

  public int retryBackoffMs() {
    return retryBackoffMs;
  }

  public long unavailableCooldownMs() {
    return unavailableCooldownMs;
  }

  public long latestCacheMs() {
    return latestCacheMs;
  }

  public int cacheMaxSchemas() {
    return cacheMaxSchemas;
  }

  /** The longest one request-and-retries sequence can take, as documented on the keys. */
  public long lookupBoundMs() {
    return (retries + 1L) * requestTimeoutMs + retryBackoffMs * ((1L << retries) - 1);
  }

  @Override
  public String toString() {
    String auth = basicAuthUserInfo != null ? "basic" : bearerToken != null ? "bearer" : "none";
    return "RegistryConfig{urls="
        + urls
        + ", auth="
        + auth
        + ", truststore="
        + (truststoreLocation == null
            ? "default"
            : truststoreLocation + " (" + truststoreType + ")")
        + ", requestTimeoutMs="
        + requestTimeoutMs
        + ", retries="
        + retries
        + ", retryBackoffMs="
        + retryBackoffMs
        + ", unavailableCooldownMs="
        + unavailableCooldownMs
        + ", latestCacheMs="
        + latestCacheMs
        + ", cacheMaxSchemas="
        + cacheMaxSchemas
        + "}";
  }

  static List<URI> parseUrls(String value) {
    List<URI> out = new ArrayList<>();
    if (value == null) {
      return out;
    }
    for (String part : value.split(",")) {
      String s = part.trim();
      if (!s.isEmpty()) {
        out.add(parseUrl(s));
      }
    }
    return List.copyOf(out);
  }

  /** One base URL, without a trailing slash; the message never repeats the URL's user info. */
  private static URI parseUrl(String s) {
    String shown = withoutUserInfo(s);
    URI uri;
    try {
      uri = new URI(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    } catch (URISyntaxException e) {
      throw new ConfigException(URL_CONFIG, shown, "is not a URL");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ConfigException(URL_CONFIG, shown, "each URL must start with http:// or https://");
    }
    if (uri.getRawUserInfo() != null) {
      throw new ConfigException(
          URL_CONFIG,
          shown,
          "must not carry user info; set " + BASIC_AUTH_USER_INFO_CONFIG + " instead");
    }
    if (uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new ConfigException(
          URL_CONFIG, shown, "each URL needs a host and no query or fragment");
    }
    return uri;
  }

  /** A URL as messages show it: without the user info a careless one may carry. */
  static String withoutUserInfo(String url) {
    return url.replaceAll("^([^/]*//)[^/@]*@", "$1").replaceAll("[?#].*$", "");
  }

  private static final class UrlList implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      parseUrls((String) value);
    }

    @Override
    public String toString() {
      return "comma-separated http(s) URLs, or empty";
    }
  }

  private static final class UserInfo implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      if (value != null && ((Password) value).value().indexOf(':') < 1) {
        throw new ConfigException(name + " must have the form user:password");
      }
    }

    @Override
    public String toString() {
      return "null or user:password";
    }
  }

  private static final class NonEmptyOrNull implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      String s = value instanceof Password p ? p.value() : value == null ? null : value.toString();
      if (s != null && s.isBlank()) {
        throw new ConfigException(name + " must not be blank when set");
      }
    }

    @Override
    public String toString() {
      return "null or non-blank";
    }
  }
}
