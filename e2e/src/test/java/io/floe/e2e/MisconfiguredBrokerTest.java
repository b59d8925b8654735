package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A broker whose Floe configuration is wrong does not start, and says which key is wrong. */
class MisconfiguredBrokerTest {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void brokerStartupFailsNamingTheKey() {
    Map<String, String> catalog = FloeCluster.s3CatalogProperties(dir);
    Throwable thrown =
        catchThrowable(() -> FloeCluster.start(catalog, Map.of("retention.mode", "forever")).close());
    assertThat(thrown).isNotNull();
    Throwable config = thrown;
    while (config != null && !(config instanceof ConfigException)) {
      config = config.getCause();
    }
    StringWriter trace = new StringWriter();
    thrown.printStackTrace(new PrintWriter(trace));
    assertThat(config).as("a ConfigException in\n%s", trace).isNotNull();
    assertThat(config).hasMessageContaining("retention.mode");
    assertThat(trace.toString()).doesNotContain(io.floe.testing.LocalS3.SECRET_KEY);
  }
}
