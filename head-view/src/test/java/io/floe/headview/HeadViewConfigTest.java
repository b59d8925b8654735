package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeadViewConfigTest {
  private static final String SECRET = "s3cr3t-Value-never-logged";

  private static Map<String, String> minimal() {
    Map<String, String> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    props.put("iceberg.uri", "jdbc:sqlite:/var/lib/floe/catalog.db");
    props.put("kafka.bootstrap.servers", "127.0.0.1:9092");
    return props;
  }

  @Test
  void everyKeyHasTypeAndDocumentation() {
    for (ConfigDef.ConfigKey key : HeadViewConfig.CONFIG_DEF.configKeys().values()) {
      assertThat(key.type).as(key.name).isNotNull();
      assertThat(key.documentation).as(key.name + " is documented").isNotBlank();
    }
    assertThat(HeadViewConfigDocs.PREFIX_DOCS.values())
        .allSatisfy(doc -> assertThat(doc).isNotBlank());
  }

  @Test
  void defaults() {
    HeadViewConfig config = HeadViewConfig.of(minimal());
    assertThat(config.listenHost()).isEqualTo("127.0.0.1");
    assertThat(config.listenPort()).isEqualTo(8181);
    assertThat(config.authToken()).isNull();
    assertThat(config.serverThreads()).isEqualTo(8);
    assertThat(config.catalogName()).isEqualTo("floe");
    assertThat(config.tableNamespace()).isEqualTo("kafka");
    assertThat(config.namespace()).isEqualTo(Namespace.of("kafka"));
    assertThat(config.scratchLocation()).isNull();
    assertThat(config.cacheTtlMs()).isEqualTo(600_000L);
    assertThat(config.idleTtlMs()).isEqualTo(600_000L);
    assertThat(config.kafkaTimeoutMs()).isEqualTo(30_000L);
    assertThat(config.onKafkaError()).isEqualTo(HeadViewConfig.OnKafkaError.FAIL);
    assertThat(config.leftoverAgeMs()).isEqualTo(600_000L);
    assertThat(config.shutdownTimeoutMs())
        .as("well under the 30 s a container runtime waits before it kills")
        .isEqualTo(10_000L);
    assertThat(config.headWriteProperties()).isEqualTo(HeadViewConfig.HEAD_WRITE_DEFAULTS);
    assertThat(config.catalogProperties())
        .containsExactly(
            Map.entry("type", "jdbc"), Map.entry("uri", "jdbc:sqlite:/var/lib/floe/catalog.db"));
    assertThat(config.kafkaProperties())
        .containsExactly(Map.entry("bootstrap.servers", "127.0.0.1:9092"));
    assertThat(config.clientDefaults()).isEmpty();
    assertThat(config.catalogDescription())
        .isEqualTo("'floe' (type jdbc, uri jdbc:sqlite:/var/lib/floe/catalog.db)");
  }

  @Test
  void valuesAndPrefixedKeysAreParsed() {
    Map<String, String> props = minimal();
    props.put("listen.host", "0.0.0.0");
    props.put("listen.port", "0");
    props.put("auth.token", "  tok  ");
    props.put("server.threads", "2");
    props.put("catalog.name", "lakehouse");
    props.put("table.namespace", "lake.kafka");
    props.put("head.scratch-location", " s3://bucket/scratch/ ");
    props.put("head.cache-ttl-ms", "0");
    props.put("head.kafka-timeout-ms", "5000");
    props.put("head.on-kafka-error", " Committed ");
    props.put("head.leftover-age-ms", "60000");
    props.put("shutdown.timeout.ms", "0");
    props.put("head.write.parquet.compression-codec", "snappy");
    props.put("kafka.security.protocol", "SSL");
    props.put("client.s3.endpoint", "http://127.0.0.1:9000");
    props.put("iceberg.s3.path-style-access", "true");
    HeadViewConfig config = HeadViewConfig.of(props);

    assertThat(config.listenHost()).isEqualTo("0.0.0.0");
    assertThat(config.listenPort()).isZero();
    assertThat(config.authToken()).isEqualTo("tok");
    assertThat(config.serverThreads()).isEqualTo(2);
    assertThat(config.catalogName()).isEqualTo("lakehouse");
    assertThat(config.namespace()).isEqualTo(Namespace.of("lake", "kafka"));
    assertThat(config.scratchLocation()).isEqualTo("s3://bucket/scratch");
    assertThat(config.cacheTtlMs()).isZero();
    assertThat(config.idleTtlMs())
        .as("at least 1000 when it follows the cache TTL")
        .isEqualTo(1000);
    assertThat(config.kafkaTimeoutMs()).isEqualTo(5000);
    assertThat(config.onKafkaError()).isEqualTo(HeadViewConfig.OnKafkaError.COMMITTED);
    assertThat(config.leftoverAgeMs()).isEqualTo(60_000L);
    assertThat(config.shutdownTimeoutMs()).isZero();
    assertThat(config.headWriteProperties())
        .containsEntry("write.parquet.compression-codec", "snappy")
        .containsEntry("write.parquet.compression-level", "1");
    assertThat(config.kafkaProperties())
        .containsExactly(
            Map.entry("bootstrap.servers", "127.0.0.1:9092"),
            Map.entry("security.protocol", "SSL"));
    assertThat(config.clientDefaults())
        .containsExactly(Map.entry("s3.endpoint", "http://127.0.0.1:9000"));
    assertThat(config.catalogProperties()).containsEntry("s3.path-style-access", "true");

    props.put("head.idle-ttl-ms", "2500");
    assertThat(HeadViewConfig.of(props).idleTtlMs()).isEqualTo(2500);
  }

  @Test
  void blankValuesOfOptionalKeysMeanUnset() {
    Map<String, String> props = minimal();
    for (String key :
        new String[] {
          "listen.port",
          "auth.token",
          "server.threads",
          "head.scratch-location",
          "head.cache-ttl-ms",
          "head.idle-ttl-ms",
          "head.kafka-timeout-ms",
          "head.leftover-age-ms",
          "shutdown.timeout.ms"
        }) {
      props.put(key, "  ");
    }
    HeadViewConfig config = HeadViewConfig.of(props);
    assertThat(config.listenPort()).isEqualTo(8181);
    assertThat(config.authToken()).isNull();
    assertThat(config.serverThreads()).isEqualTo(8);
    assertThat(config.scratchLocation()).isNull();
    assertThat(config.cacheTtlMs()).isEqualTo(600_000L);
    assertThat(config.idleTtlMs()).isEqualTo(600_000L);
    assertThat(config.kafkaTimeoutMs()).isEqualTo(30_000L);
    assertThat(config.leftoverAgeMs()).isEqualTo(600_000L);
    assertThat(config.shutdownTimeoutMs()).isEqualTo(10_000L);
  }

  @ParameterizedTest
  @CsvSource({
    "listen.port, 70000",
    "listen.port, -1",
    "listen.port, http",
    "server.threads, 0",
    "server.threads, 1025",
    "head.cache-ttl-ms, -1",
    "head.cache-ttl-ms, soon",
    "head.idle-ttl-ms, 999",
    "head.kafka-timeout-ms, 0",
    "head.on-kafka-error, retry",
    "head.leftover-age-ms, 1999",
    "head.leftover-age-ms, -1",
    "shutdown.timeout.ms, -1",
    "shutdown.timeout.ms, 600001",
    "shutdown.timeout.ms, 10s",
    "head.on-kafka-error, ''",
    "catalog.name, ''",
    "table.namespace, ''",
    "table.namespace, 'a..b'",
    "iceberg.type, oracle",
    "iceberg.uri, '  '",
    "kafka.bootstrap.servers, ''",
  })
  void badValuesFailNamingTheKey(String key, String value) {
    Map<String, String> props = minimal();
    props.put(key, value);
    assertThatThrownBy(() -> HeadViewConfig.of(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void missingRequiredKeysAreNamed() {
    Map<String, String> noKafka = minimal();
    noKafka.remove("kafka.bootstrap.servers");
    assertThatThrownBy(() -> HeadViewConfig.of(noKafka))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.bootstrap.servers");

    Map<String, String> noCatalog = minimal();
    noCatalog.remove("iceberg.type");
    assertThatThrownBy(() -> HeadViewConfig.of(noCatalog))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("iceberg.type")
        .hasMessageContaining("iceberg.catalog-impl");
  }

  @Test
  void toStringNamesKeysButNeverTheTokenNorCatalogOrKafkaValues() {
    Map<String, String> props = minimal();
    props.put("auth.token", SECRET);
    props.put("iceberg.jdbc.password", SECRET);
    props.put("iceberg.uri", "jdbc:postgresql://db/iceberg?password=" + SECRET);
    props.put("iceberg.s3.secret-access-key", SECRET);
    props.put("kafka.sasl.jaas.config", "PlainLoginModule password=\"" + SECRET + "\";");
    String shown = HeadViewConfig.of(props).toString();
    assertThat(shown)
        .doesNotContain(SECRET)
        .contains("auth=bearer")
        .contains("jdbc.password")
        .contains("sasl.jaas.config");
  }

  @Test
  void loadsAPropertiesFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("head-view.properties");
    Files.writeString(
        file,
        "listen.port=9191\n"
            + "iceberg.type=jdbc\n"
            + "iceberg.uri=jdbc:sqlite:/tmp/c.db\n"
            + "kafka.bootstrap.servers=127.0.0.1:9092\n"
            + "auth.token=\n");
    HeadViewConfig config = HeadViewConfig.load(file);
    assertThat(config.listenPort()).isEqualTo(9191);
    assertThat(config.authToken()).isNull();
  }
}
