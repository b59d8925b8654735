package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
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

class FloeRsmConfigTest {
  private static final String SECRET = "s3cr3t-Value-never-logged";

  @TempDir Path dir;

  private static Map<String, Object> minimal() {
    Map<String, Object> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    props.put("iceberg.uri", "jdbc:sqlite::memory:");
    props.put("broker.id", "3");
    return props;
  }

  @Test
  void everyKeyHasTypeDefaultValidatorAndDocumentation() {
    assertThat(FloeRsmConfig.CONFIG_DEF.configKeys()).isNotEmpty();
    for (ConfigDef.ConfigKey key : FloeRsmConfig.CONFIG_DEF.configKeys().values()) {
      assertThat(key.type).as(key.name).isNotNull();
      assertThat(key.hasDefault()).as(key.name + " has a default").isTrue();
      assertThat(key.validator).as(key.name + " has a validator").isNotNull();
      assertThat(key.documentation).as(key.name + " is documented").isNotBlank();
    }
    assertThat(FloeRsmConfig.documentation()).contains("retention.mode", "iceberg.type");
  }

  @Test
  void defaults() {
    FloeRsmConfig config = new FloeRsmConfig(minimal());
    assertThat(config.catalogName()).isEqualTo("floe");
    assertThat(config.namespace()).isEqualTo(Namespace.of("kafka"));
    assertThat(config.retentionMode()).isEqualTo(FloeRsmConfig.RetentionMode.DELETE);
    assertThat(config.commitMaxAttempts()).isEqualTo(10);
    assertThat(config.commitBackoffMinMs()).isEqualTo(100);
    assertThat(config.commitBackoffMaxMs()).isEqualTo(10_000);
    assertThat(config.operationTimeoutMs()).isEqualTo(30_000);
    assertThat(config.copyTimeoutMs()).isEqualTo(300_000);
    assertThat(config.brokerId()).isEqualTo(3);
    assertThat(config.snapshotExpiryIntervalMs()).isEqualTo(60_000);
    assertThat(config.tableOptions().tableProperties())
        .containsEntry("write.parquet.compression-codec", "zstd")
        .containsEntry("write.target-file-size-bytes", Long.toString(128L * 1024 * 1024))
        .containsEntry("write.parquet.dict-size-bytes", "65536");
    assertThat(config.catalogProperties())
        .containsEntry("type", "jdbc")
        .containsEntry("uri", "jdbc:sqlite::memory:");
    assertThat(config.unknownKeys()).isEmpty();
  }

  @Test
  void typedRulesNeedARegistryAndTheirKeysAreNotTypos() {
    Map<String, Object> props = minimal();
    props.put("types.rules", "orders");
    props.put("types.rule.orders.topics", "orders\\..*");
    props.put("types.rule.orders.value.format", "avro");
    assertThatThrownBy(() -> new FloeRsmConfig(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("registry.url");
    props.put("registry.url", "http://127.0.0.1:8081");
    FloeRsmConfig config = new FloeRsmConfig(props);
    assertThat(config.unknownKeys()).isEmpty();
    assertThat(config.tableOptions().formatsFor("orders.eu").value().typed()).isTrue();
    assertThat(config.tableOptions().formatsFor("payments").typed()).isFalse();
  }

  @Test
  void valuesAreParsed() {
    Map<String, Object> props = minimal();
    props.put("table.namespace", "lake.kafka");
    props.put("table.partition.time-transform", "HOUR");
    props.put("table.parquet.compression", "snappy");
    props.put("retention.mode", "keep");
    props.put("commit.max-attempts", "3");
    props.put("operation.timeout.ms", "5000");
    props.put("copy.timeout.ms", "60000");
    props.put("iceberg.s3.endpoint", "http://127.0.0.1:9000");
    props.put("typo.key", "x");
    props.put("snapshot.expiry.interval.ms", "0");
    FloeRsmConfig config = new FloeRsmConfig(props);
    assertThat(config.snapshotExpiryIntervalMs()).as("off").isZero();
    props.put("snapshot.expiry.interval.ms", "1000");
    assertThat(new FloeRsmConfig(props).snapshotExpiryIntervalMs()).isEqualTo(1000);
    assertThat(config.namespace()).isEqualTo(Namespace.of("lake", "kafka"));
    assertThat(config.retentionMode()).isEqualTo(FloeRsmConfig.RetentionMode.KEEP);
    assertThat(config.commitMaxAttempts()).isEqualTo(3);
    assertThat(config.operationTimeoutMs()).isEqualTo(5_000);
    assertThat(config.copyTimeoutMs()).isEqualTo(60_000);
    assertThat(config.tableOptions().tableProperties())
        .containsEntry("write.parquet.compression-codec", "snappy");
    assertThat(config.catalogProperties()).containsEntry("s3.endpoint", "http://127.0.0.1:9000");
    assertThat(config.unknownKeys()).containsExactly("typo.key");
  }

  @ParameterizedTest
  @CsvSource({
    "iceberg.type, oracle",
    "iceberg.uri, '  '",
    "catalog.name, ''",
    "table.namespace, 'a..b'",
    "table.partition.time-transform, week",
    "table.target-file-size-bytes, 1000",
    "table.target-file-size-bytes, lots",
    "table.parquet.compression, zip",
    "table.parquet.row-group-size-bytes, 10",
    "index.interval.bytes, 0",
    "retention.mode, archive",
    "commit.max-attempts, 0",
    "commit.backoff.min.ms, -1",
    "commit.backoff.max.ms, 50",
    "cache.segments.max-entries, 0",
    "cache.tables.expiration.ms, 0",
    "operation.timeout.ms, 0",
    "operation.timeout.ms, 30s",
    "copy.timeout.ms, 99",
    "broker.id, x",
    "snapshot.expiry.interval.ms, 999",
    "snapshot.expiry.interval.ms, -1",
    "snapshot.expiry.interval.ms, 1m",
  })
  void badValuesNameTheKey(String key, String value) {
    Map<String, Object> props = minimal();
    props.put(key, value);
    assertThatThrownBy(() -> new FloeRsmConfig(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void missingCatalogTypeNamesTheKey() {
    Map<String, Object> props = minimal();
    props.remove("iceberg.type");
    assertThatThrownBy(() -> new FloeRsmConfig(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("iceberg.type");
  }

  @Test
  void credentialsAreMasked() {
    Map<String, Object> props = minimal();
    props.put("iceberg.s3.secret-access-key", SECRET);
    props.put("iceberg.s3.access-key-id", SECRET + "-id");
    props.put("iceberg.jdbc.password", SECRET);
    props.put("iceberg.token", SECRET);
    props.put("iceberg.credential", "client:" + SECRET);
    FloeRsmConfig config = new FloeRsmConfig(props);
    assertThat(config.effectiveConfig().toString()).doesNotContain(SECRET).contains("[hidden]");
    assertThat(config.effectiveConfig()).containsEntry("iceberg.jdbc.password", "[hidden]");
    assertThat(config.catalogProperties())
        .containsEntry("jdbc.password", SECRET); // passed on, never printed
    for (String key :
        new String[] {
          "iceberg.s3.secret-access-key",
          "iceberg.s3.access-key-id",
          "iceberg.jdbc.password",
          "iceberg.token",
          "iceberg.credential",
          "iceberg.rest.sigv4.session-key"
        }) {
      assertThat(FloeRsmConfig.isSensitive(key)).as(key).isTrue();
    }
    assertThat(FloeRsmConfig.isSensitive("iceberg.uri")).isFalse();
  }

  @Test
  void credentialsEmbeddedInUrisAreMasked() {
    Map<String, Object> props = minimal();
    props.put(
        "iceberg.uri",
        "jdbc:postgresql://db:5432/iceberg?user=floe&password=" + SECRET + "&ssl=true");
    props.put("iceberg.warehouse", "s3://floe:" + SECRET + "@bucket/warehouse");
    FloeRsmConfig config = new FloeRsmConfig(props);
    assertThat(config.effectiveConfig().toString()).doesNotContain(SECRET);
    assertThat(config.effectiveConfig().get("iceberg.uri"))
        .isEqualTo("jdbc:postgresql://db:5432/iceberg?user=floe&password=[hidden]&ssl=true");
    assertThat(config.effectiveConfig().get("iceberg.warehouse"))
        .isEqualTo("s3://floe:[hidden]@bucket/warehouse");
  }

  @Test
  void configureFailsNamingTheBadKey() {
    Map<String, Object> props = minimal();
    props.put("retention.mode", "forever");
    try (FloeRemoteStorageManager rsm = new FloeRemoteStorageManager()) {
      assertThatThrownBy(() -> rsm.configure(props))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("retention.mode");
    }
  }

  @Test
  void catalogFailureNamesTheCatalogAndCauseWithoutSecrets() {
    Map<String, Object> props = minimal();
    props.put("catalog.name", "lakehouse");
    props.put("iceberg.uri", "jdbc:nosuchdriver://db.example/iceberg?password=" + SECRET);
    props.put("iceberg.jdbc.password", SECRET);
    props.put("iceberg.warehouse", dir.resolve("warehouse").toUri().toString());
    try (FloeRemoteStorageManager rsm = new FloeRemoteStorageManager()) {
      Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> rsm.configure(props));
      assertThat(thrown)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("'lakehouse'")
          .hasMessageContaining("jdbc")
          .hasMessageContaining("nosuchdriver");
      StringWriter trace = new StringWriter();
      thrown.printStackTrace(new PrintWriter(trace));
      assertThat(trace.toString()).doesNotContain(SECRET);
    }
  }

  @Test
  void configuresAgainstARealCatalog() {
    Map<String, Object> props = minimal();
    props.put("iceberg.uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put("iceberg.jdbc.schema-version", "V1");
    props.put("iceberg.warehouse", dir.resolve("warehouse").toUri().toString());
    try (FloeRemoteStorageManager rsm = new FloeRemoteStorageManager()) {
      rsm.configure(props);
      assertThat(rsm.metrics()).isNotNull();
    }
  }

  @Test
  void retriableExceptionIsFoundOnKafka43() {
    assertThat(FloeRemoteStorageManager.hasRetriableException()).isTrue();
  }
}
