package io.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The shared catalog keys as a configuration defines and reads them. */
class CatalogConfigTest {
  private static final ConfigDef DEF =
      CatalogConfig.defineTableNamespace(
          CatalogConfig.defineCatalogName(CatalogConfig.defineCatalog(new ConfigDef())),
          "Used here.");

  private static Map<String, Object> minimal() {
    Map<String, Object> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    return props;
  }

  private static CatalogConfig read(Map<String, Object> props, String userPrefix) {
    return new CatalogConfig(new AbstractConfig(DEF, props, false), userPrefix);
  }

  @Test
  void definesTheSharedKeysInOrderWithDefaultsValidatorsAndDocs() {
    assertThat(DEF.configKeys().keySet())
        .containsExactly(
            "iceberg.type",
            "iceberg.catalog-impl",
            "iceberg.uri",
            "iceberg.warehouse",
            "iceberg.io-impl",
            "catalog.name",
            "table.namespace");
    for (ConfigDef.ConfigKey key : DEF.configKeys().values()) {
      assertThat(key.hasDefault()).as(key.name).isTrue();
      assertThat(key.validator).as(key.name).isNotNull();
      assertThat(key.documentation).as(key.name).isNotBlank();
    }
    assertThat(DEF.configKeys().get("table.namespace").documentation)
        .isEqualTo(
            "Iceberg namespace of the topic tables; dots separate levels (a.b is namespace [a, b])."
                + " Used here.");
  }

  @Test
  void readsNameNamespaceAndCatalogPropertiesWithThePrefixRemoved() {
    Map<String, Object> props = minimal();
    props.put("iceberg.uri", "jdbc:sqlite:/tmp/c.db");
    props.put("iceberg.jdbc.password", new Password("s3cr3t"));
    props.put("iceberg.s3.endpoint", "http://127.0.0.1:9000");
    props.put("kafka.bootstrap.servers", "x:9092");
    props.put("table.namespace", " lake.kafka ");
    CatalogConfig config = read(props, "");

    assertThat(config.properties())
        .containsExactly(
            Map.entry("jdbc.password", "s3cr3t"),
            Map.entry("s3.endpoint", "http://127.0.0.1:9000"),
            Map.entry("type", "jdbc"),
            Map.entry("uri", "jdbc:sqlite:/tmp/c.db"));
    assertThat(config.name()).isEqualTo("floe");
    assertThat(config.namespace()).isEqualTo(Namespace.of("lake", "kafka"));
    assertThat(CatalogConfig.namespace("kafka")).isEqualTo(Namespace.of("kafka"));
  }

  @Test
  void describesTheCatalogWithoutItsCredentials() {
    Map<String, Object> props = minimal();
    props.put("catalog.name", "lakehouse");
    props.put("iceberg.uri", "jdbc:postgresql://floe:pw@db:5432/iceberg?password=pw2");
    CatalogConfig config = read(props, "");
    assertThat(config.description()).isEqualTo("'lakehouse' (type jdbc)");
    assertThat(config.descriptionWithUri())
        .isEqualTo("'lakehouse' (type jdbc, uri jdbc:postgresql://db:5432/iceberg)");

    Map<String, Object> custom = new HashMap<>();
    custom.put("iceberg.catalog-impl", "com.example.MyCatalog");
    assertThat(read(custom, "").descriptionWithUri())
        .isEqualTo("'floe' (catalog-impl com.example.MyCatalog)");
  }

  @Test
  void exactlyOneOfTypeAndCatalogImplIsRequired() {
    assertThatThrownBy(() -> read(new HashMap<>(), "rsm.config."))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("\"iceberg.type\" (or \"iceberg.catalog-impl\")")
        .hasMessageContaining(
            "set rsm.config.iceberg.type to one of " + CatalogConfig.CATALOG_TYPES);
    Map<String, Object> both = minimal();
    both.put("iceberg.catalog-impl", "com.example.MyCatalog");
    assertThatThrownBy(() -> read(both, ""))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("iceberg.type")
        .hasMessageContaining("not both");
  }

  @ParameterizedTest
  @CsvSource({
    "iceberg.type, oracle",
    "iceberg.catalog-impl, '  '",
    "iceberg.uri, '  '",
    "iceberg.warehouse, '  '",
    "iceberg.io-impl, '  '",
    "catalog.name, ''",
    "table.namespace, ''",
    "table.namespace, 'a..b'",
    "table.namespace, '.a'",
    "table.namespace, 'a.'",
    "table.namespace, 'a. .b'",
  })
  void badValuesNameTheKey(String key, String value) {
    Map<String, Object> props = minimal();
    props.put(key, value);
    assertThatThrownBy(() -> read(props, ""))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void typesAreCaseInsensitive() {
    for (String type : List.of("JDBC", "Rest", "nessie")) {
      Map<String, Object> props = new HashMap<>();
      props.put("iceberg.type", type);
      assertThat(read(props, "").properties()).containsEntry("type", type);
    }
  }
}
