package io.floe.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.floe.testing.LocalRegistry;
import io.floe.testing.LoopbackProxy;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the client reaches a real registry: credentials, TLS with a trust store, timeouts, a stopped
 * registry and the cooldown after it; and that no secret ever shows in a message.
 */
class RegistryHttpTest {
  private static final String USER_INFO = "floe:pw-Zq81-never-shown";
  private static final String TOKEN = "tok-Hy27-never-shown";
  private static final String SERVER_STORE_PASSWORD = "srv-Kp55-never-shown";
  private static final String TRUST_PASSWORD = "trust-Wd90-never-shown";
  private static final String BASIC =
      "Basic " + Base64.getEncoder().encodeToString(USER_INFO.getBytes(StandardCharsets.UTF_8));

  @TempDir static Path dir;
  private static LocalRegistry registry;
  private static LoopbackProxy proxy;
  private static int schemaId;

  @BeforeAll
  static void startRegistry() {
    registry = LocalRegistry.start();
    proxy = LoopbackProxy.http(registry.url());
    schemaId = registry.register("http-value", "AVRO", "\"string\"");
  }

  @AfterAll
  static void stopRegistry() {
    proxy.close();
    registry.close();
  }

  @BeforeEach
  void resetProxy() {
    proxy.requireAuthorization(null);
    proxy.reset();
  }

  private static SchemaRegistryClient client(Map<String, Object> extra) {
    Map<String, Object> props = new HashMap<>(extra);
    props.putIfAbsent(RegistryConfig.URL_CONFIG, proxy.url());
    return new SchemaRegistryClient(SchemaRegistryClientTest.config(props));
  }

  @Test
  void sendsBasicCredentials() {
    proxy.requireAuthorization(BASIC);

    RegistrySchema schema =
        client(Map.of(RegistryConfig.BASIC_AUTH_USER_INFO_CONFIG, USER_INFO)).byId(schemaId);

    assertThat(schema.text()).isEqualTo("\"string\"");
    assertThat(proxy.seen()).extracting(LoopbackProxy.Seen::authorization).containsExactly(BASIC);
  }

  @Test
  void sendsABearerToken() {
    proxy.requireAuthorization("Bearer " + TOKEN);

    assertThat(client(Map.of(RegistryConfig.BEARER_TOKEN_CONFIG, TOKEN)).byId(schemaId).id())
        .isEqualTo(schemaId);
    assertThat(proxy.seen().get(0).authorization()).isEqualTo("Bearer " + TOKEN);
  }

  @Test
  void reportsRefusedCredentialsAtOnceWithoutRetrying() {
    proxy.requireAuthorization("Bearer something-else");

    assertThatThrownBy(
            () -> client(Map.of(RegistryConfig.BASIC_AUTH_USER_INFO_CONFIG, USER_INFO)).byId(1))
        .isInstanceOf(RegistryAuthException.class)
        .hasMessageContaining("refused the configured credentials (HTTP 401)")
        .hasMessageContaining(proxy.url());
    assertThatThrownBy(() -> client(Map.of()).latest("http-value"))
        .isInstanceOf(RegistryAuthException.class)
        .hasMessageContaining("requires credentials and none are configured");
    assertThat(proxy.requests()).isEqualTo(2);
  }

  @Test
  void refusedCredentialsCoolDownLikeAnUnreachableRegistry() {
    proxy.requireAuthorization("Bearer something-else");
    SchemaRegistryClient client = client(Map.of(RegistryConfig.BEARER_TOKEN_CONFIG, TOKEN));

    assertThatThrownBy(() -> client.byId(schemaId)).isInstanceOf(RegistryAuthException.class);
    assertThatThrownBy(() -> client.latest("http-value"))
        .isInstanceOf(RegistryAuthException.class)
        .hasMessageContaining("refused the credentials")
        .hasMessageContaining("no request made");
    assertThat(proxy.requests()).isEqualTo(1);
  }

  @Test
  void noSecretInAnyMessageOrToString() throws Exception {
    proxy.requireAuthorization("Bearer something-else");
    Map<String, Object> basic =
        Map.of(
            RegistryConfig.BASIC_AUTH_USER_INFO_CONFIG,
            USER_INFO,
            RegistryConfig.SSL_TRUSTSTORE_LOCATION_CONFIG,
            truststore("PKCS12").toString(),
            RegistryConfig.SSL_TRUSTSTORE_PASSWORD_CONFIG,
            TRUST_PASSWORD,
            RegistryConfig.RETRY_BACKOFF_MS_CONFIG,
            "0");
    Map<String, Object> bearer = new HashMap<>(basic);
    bearer.remove(RegistryConfig.BASIC_AUTH_USER_INFO_CONFIG);
    bearer.put(RegistryConfig.BEARER_TOKEN_CONFIG, TOKEN);
    List<String> shown = new ArrayList<>();
    for (Map<String, Object> props : List.of(basic, bearer)) {
      shown.add(SchemaRegistryClientTest.config(props).toString());
      shown.add(client(props).toString());
      collect(shown, catchThrowable(() -> client(props).byId(1)));
      Map<String, Object> down = new HashMap<>(props);
      down.put(RegistryConfig.URL_CONFIG, closedPortUrl());
      collect(shown, catchThrowable(() -> client(down).byId(1)));
      Map<String, Object> both = new HashMap<>(basic);
      both.put(RegistryConfig.BEARER_TOKEN_CONFIG, TOKEN);
      collect(shown, catchThrowable(() -> SchemaRegistryClientTest.config(both)));
    }
    Map<String, Object> inUrl =
        Map.of(RegistryConfig.URL_CONFIG, "http://" + USER_INFO + "@127.0.0.1:1/apis");
    collect(shown, catchThrowable(() -> SchemaRegistryClientTest.config(inUrl)));

    assertThat(shown).hasSizeGreaterThan(10).allSatisfy(RegistryHttpTest::assertNoSecret);
  }

  @Test
  void trustsTheRegistryCertificateOfAPkcs12OrJksTrustStore() throws Exception {
    try (LoopbackProxy tls = LoopbackProxy.https(registry.url(), serverTls())) {
      for (String type : List.of("PKCS12", "JKS")) {
        Map<String, Object> props =
            Map.of(
                RegistryConfig.URL_CONFIG, tls.url(),
                RegistryConfig.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore(type).toString(),
                RegistryConfig.SSL_TRUSTSTORE_PASSWORD_CONFIG, TRUST_PASSWORD,
                RegistryConfig.SSL_TRUSTSTORE_TYPE_CONFIG, type.toLowerCase());
        assertThat(client(props).byId(schemaId).text()).as(type).isEqualTo("\"string\"");
      }
      assertThat(tls.url()).startsWith("https://127.0.0.1:");
      assertThat(tls.requests()).isEqualTo(2);

      assertThatThrownBy(
              () ->
                  client(
                          Map.of(
                              RegistryConfig.URL_CONFIG,
                              tls.url(),
                              RegistryConfig.RETRIES_CONFIG,
                              "0"))
                      .byId(schemaId))
          .as("the JDK's default trust does not know a self-signed certificate")
          .isInstanceOf(RegistryUnavailableException.class)
          .hasMessageContaining("SSLHandshakeException");
    }
  }

  @Test
  void aRegistryThatNeverAnswersIsBoundedByTheTimeout() throws Exception {
    // Connections complete in the listen backlog; nothing ever reads or answers them.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String url = "http://127.0.0.1:" + silent.getLocalPort();
      RegistryConfig config =
          SchemaRegistryClientTest.config(
              Map.of(
                  RegistryConfig.URL_CONFIG, url,
                  RegistryConfig.REQUEST_TIMEOUT_MS_CONFIG, "400",
                  RegistryConfig.RETRIES_CONFIG, "1",
                  RegistryConfig.RETRY_BACKOFF_MS_CONFIG, "100"));
      SchemaRegistryClient client = new SchemaRegistryClient(config);
      long start = System.nanoTime();

      assertThatThrownBy(() -> client.byId(7))
          .isInstanceOf(RegistryUnavailableException.class)
          .hasMessageContaining("2 attempt(s)")
          .hasMessageContaining(url + "/schemas/ids/7: no answer within 400 ms");

      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(config.lookupBoundMs()).isEqualTo(900);
      assertThat(took)
          .isGreaterThanOrEqualTo(Duration.ofMillis(900))
          .isLessThan(Duration.ofMillis(900 + 1_000));
    }
  }

  @Test
  void aStoppedRegistryFailsWithinTheBoundThenFailsFastDuringTheCooldown() {
    RegistryConfig config;
    SchemaRegistryClient client;
    int cached;
    try (LocalRegistry stopped = LocalRegistry.start()) {
      cached = stopped.register("stopped-value", "AVRO", "\"int\"");
      config =
          SchemaRegistryClientTest.config(
              Map.of(
                  RegistryConfig.URL_CONFIG, stopped.url(),
                  RegistryConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000",
                  RegistryConfig.UNAVAILABLE_COOLDOWN_MS_CONFIG, "1500"));
      client = new SchemaRegistryClient(config);
      assertThat(client.byId(cached).text()).isEqualTo("\"int\"");
    }

    assertThat(client.byId(cached).text())
        .as("cached schemas outlive the registry")
        .isEqualTo("\"int\"");
    long start = System.nanoTime();
    assertThatThrownBy(() -> client.byId(cached + 1))
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("3 attempt(s)")
        .hasMessageContaining("/apis/ccompat/v7/schemas/ids/" + (cached + 1))
        .hasMessageContaining("ConnectException");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofMillis(config.lookupBoundMs()));

    long fast = System.nanoTime();
    assertThatThrownBy(() -> client.latest("stopped-value"))
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("no request made")
        .hasMessageContaining("registry.unavailable.cooldown.ms");
    // No request and no retry: well under one backoff, which any second attempt waits first (a
    // fixed 50 ms bound failed once under a loaded CI run: 87 ms)
    assertThat(Duration.ofNanos(System.nanoTime() - fast))
        .isLessThan(Duration.ofMillis(config.retryBackoffMs()));

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> client.byId(cached + 1))
                    .as("after the cooldown the registry is tried again")
                    .hasMessageContaining("3 attempt(s)"));
  }

  private static void collect(List<String> shown, Throwable thrown) {
    assertThat(thrown).isNotNull();
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      shown.add(t.toString());
    }
  }

  private static void assertNoSecret(String text) {
    String encoded = Base64.getEncoder().encodeToString(USER_INFO.getBytes(StandardCharsets.UTF_8));
    assertThat(text).doesNotContain("pw-Zq81", "tok-Hy27", "srv-Kp55", "trust-Wd90", encoded);
  }

  private static String closedPortUrl() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  /** A self-signed certificate for 127.0.0.1 in a PKCS12 key store, made by keytool. */
  private static synchronized Path serverStore() throws Exception {
    Path store = dir.resolve("server.p12");
    if (!Files.exists(store)) {
      keytool(
          "-genkeypair",
          "-alias",
          "registry",
          "-keyalg",
          "RSA",
          "-keysize",
          "2048",
          "-dname",
          "CN=127.0.0.1",
          "-ext",
          "SAN=ip:127.0.0.1",
          "-validity",
          "2",
          "-storetype",
          "PKCS12",
          "-keystore",
          store.toString(),
          "-storepass",
          SERVER_STORE_PASSWORD,
          "-keypass",
          SERVER_STORE_PASSWORD);
      keytool(
          "-exportcert",
          "-rfc",
          "-alias",
          "registry",
          "-keystore",
          store.toString(),
          "-storepass",
          SERVER_STORE_PASSWORD,
          "-file",
          dir.resolve("server.pem").toString());
    }
    return store;
  }

  /** A trust store of {@code type} holding only the server's certificate. */
  private static synchronized Path truststore(String type) throws Exception {
    serverStore();
    Path store = dir.resolve("trust." + type.toLowerCase());
    if (!Files.exists(store)) {
      keytool(
          "-importcert",
          "-noprompt",
          "-alias",
          "registry",
          "-file",
          dir.resolve("server.pem").toString(),
          "-storetype",
          type,
          "-keystore",
          store.toString(),
          "-storepass",
          TRUST_PASSWORD);
    }
    return store;
  }

  private static SSLContext serverTls() throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(serverStore())) {
      store.load(in, SERVER_STORE_PASSWORD.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, SERVER_STORE_PASSWORD.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("keytool.log").toFile())
            .start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("keytool " + args[0]).isZero();
  }
}
