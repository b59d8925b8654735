package io.floe.headview;

import io.floe.testing.TestCatalogs;
import java.util.HashMap;
import java.util.Map;

/**
 * The head view's settings the tests and the bench share: the test JdbcCatalog, a Kafka, any free
 * local port.
 */
public final class TestHeadViewConfig {
  private TestHeadViewConfig() {}

  /**
   * A mutable map: callers add their own keys (token, timeouts, TTLs) before {@link
   * HeadViewConfig#of}.
   */
  public static Map<String, String> properties(
      Map<String, String> catalogProperties, String bootstrapServers) {
    Map<String, String> props = new HashMap<>();
    catalogProperties.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("iceberg.type", "jdbc");
    props.put("catalog.name", TestCatalogs.CATALOG_NAME);
    props.put("kafka.bootstrap.servers", bootstrapServers);
    props.put("listen.port", "0");
    return props;
  }
}
