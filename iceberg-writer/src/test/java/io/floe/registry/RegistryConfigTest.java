package io.floe.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The registry keys as a configuration defines, validates and reads them. */
class RegistryConfigTest {
  private static final ConfigDef DEF = RegistryConfig.defineRegistry(new ConfigDef());

  @TempDir Path dir;

  private static RegistryConfig read(Map<String, Object> props) {
    return new RegistryConfig(new AbstractConfig(DEF, props, false));
  }

  @Test
  void definesTheKeysWithDefaultsAndDocs() {
    assertThat(DEF.configKeys().keySet())
        .containsExactly(
            "registry.url",
            "registry.basic.auth.user.info",
            "registry.bearer.token",
            "registry.ssl.truststore.location",
            "registry.ssl.truststore.password",
            "registry.ssl.truststore.type",
            "registry.request.timeout.ms",
            "registry.retries",
            "registry.retry.backoff.ms",
            "registry.unavailable.cooldown.ms",
            "registry.latest.cache.ms",
            "registry.cache.max.schemas");
    for (ConfigDef.ConfigKey key : DEF.configKeys().values()) {
      assertThat(key.hasDefault()).as(key.name).isTrue();
      assertThat(key.validator).as(key.name).isNotNull();
      assertThat(key.documentation).as(key.name).isNotBlank();
    }
    for (String key :
        List.of("registry.request.timeout.ms", "registry.retries", "registry.retry.backoff.ms")) {
      assertThat(DEF.configKeys().get(key).documentation)
          .as(key)
          .contains("(registry.retries + 1) x registry.request.timeout.ms");
    }
    RegistryConfig defaults = read(Map.of());
    assertThat(defaults.enabled()).isFalse();
    assertThat(defaults.requestTimeoutMs()).isEqualTo(5_000);
    assertThat(defaults.retries()).isEqualTo(2);
    assertThat(defaults.retryBackoffMs()).isEqualTo(200);
    assertThat(defaults.unavailableCooldownMs()).isEqualTo(10_000);
    assertThat(defaults.latestCacheMs()).isEqualTo(60_000);
    assertThat(defaults.cacheMaxSchemas()).isEqualTo(10_000);
    assertThat(defaults.lookupBoundMs()).isEqualTo(3 * 5_000 + 200 + 400);
    assertThat(defaults.authorization()).isNull();
  }

  @Test
  void readsUrlsInOrderWithoutTrailingSlashes() {
    RegistryConfig config =
        read(Map.of("registry.url", " http://a.example:8081/ , https://b.example/apis/ccompat/v7"));

    assertThat(config.enabled()).isTrue();
    assertThat(config.urls())
        .containsExactly(
            URI.create("http://a.example:8081"), URI.create("https://b.example/apis/ccompat/v7"));
  }

  @Test
  void buildsTheAuthorizationHeader() {
    assertThat(read(Map.of("registry.basic.auth.user.info", "u:p")).authorization())
        .isEqualTo("Basic dTpw");
    assertThat(read(Map.of("registry.bearer.token", "t0k")).authorization())
        .isEqualTo("Bearer t0k");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "registry.url|ftp://r.example|must start with http:// or https://",
        "registry.url|r.example:8081|must start with http:// or https://",
        "registry.url|http://u:secret@r.example|must not carry user info",
        "registry.url|http://r.example/?x=1|no query or fragment",
        "registry.request.timeout.ms|0|at least 1",
        "registry.retries|-1|at least 0",
        "registry.retry.backoff.ms|-5|at least 0",
        "registry.unavailable.cooldown.ms|-1|at least 0",
        "registry.latest.cache.ms|-1|at least 0",
        "registry.cache.max.schemas|0|at least 1",
        "registry.ssl.truststore.type|PEMX|PEMX",
        "registry.basic.auth.user.info|nocolon|user:password",
      })
  void rejectsBadValuesNamingTheKey(String key, String value, String message) {
    assertThatThrownBy(() -> read(Map.of(key, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key)
        .hasMessageContaining(message)
        .message()
        .doesNotContain("secret", "nocolon");
  }

  @Test
  void rejectsBothKindsOfAuthenticationNamingBothKeys() {
    Map<String, Object> props = new HashMap<>();
    props.put("registry.basic.auth.user.info", "u:p4ss");
    props.put("registry.bearer.token", "t0ken");

    assertThatThrownBy(() -> read(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("registry.basic.auth.user.info")
        .hasMessageContaining("registry.bearer.token")
        .message()
        .doesNotContain("p4ss", "t0ken");
  }

  @Test
  void rejectsAMissingTrustStoreNamingTheKey() throws Exception {
    Path missing = dir.resolve("missing.p12");
    assertThatThrownBy(() -> read(Map.of("registry.ssl.truststore.location", missing.toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("registry.ssl.truststore.location")
        .hasMessageContaining("no such file");

    Path garbage = Files.writeString(dir.resolve("garbage.p12"), "not a key store");
    RegistryConfig config =
        read(
            Map.of(
                "registry.url", "https://127.0.0.1:1",
                "registry.ssl.truststore.location", garbage.toString(),
                "registry.ssl.truststore.password", "hunter2"));
    assertThatThrownBy(() -> new SchemaRegistryClient(config))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("registry.ssl.truststore.location")
        .hasMessageContaining("PKCS12")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void showsNoSecretInToString() {
    String shown =
        read(Map.of(
                "registry.url", "http://r.example:8081",
                "registry.basic.auth.user.info", "user:hunter2",
                "registry.ssl.truststore.password", "hunter3"))
            .toString();

    assertThat(shown)
        .contains("http://r.example:8081", "auth=basic")
        .doesNotContain("hunter2", "hunter3", "user:");
  }

  @Test
  void aClientNeedsAUrl() {
    RegistryConfig none = read(Map.of());
    assertThatThrownBy(() -> new SchemaRegistryClient(none))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("registry.url");
  }
}
