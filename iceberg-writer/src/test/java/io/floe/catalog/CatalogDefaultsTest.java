package io.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.metrics.MetricsReporter;
import org.junit.jupiter.api.Test;

class CatalogDefaultsTest {

  @Test
  void manifestCacheOnAndReportsAtDebugUnlessTheUserSaysOtherwise() {
    Map<String, String> defaults = CatalogDefaults.apply(Map.of("uri", "jdbc:sqlite::memory:"));
    assertThat(defaults)
        .containsEntry("uri", "jdbc:sqlite::memory:")
        .containsEntry(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true")
        .containsEntry(CatalogProperties.IO_MANIFEST_CACHE_MAX_TOTAL_BYTES, "33554432")
        .containsEntry(
            CatalogProperties.METRICS_REPORTER_IMPL, DebugMetricsReporter.class.getName());

    Map<String, String> chosen =
        CatalogDefaults.apply(
            Map.of(
                CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "false",
                CatalogProperties.METRICS_REPORTER_IMPL, "com.example.Reporter"));
    assertThat(chosen)
        .containsEntry(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "false")
        .containsEntry(CatalogProperties.METRICS_REPORTER_IMPL, "com.example.Reporter");
  }

  @Test
  void storageAndCatalogWaitsAreBoundedUnlessTheUserSaysOtherwise() {
    Map<String, String> sqlite = CatalogDefaults.apply(Map.of("uri", "jdbc:sqlite:/tmp/c.db"));
    assertThat(sqlite)
        .containsEntry("s3.retry.num-retries", "3")
        .containsEntry("s3.retry.max-wait-ms", "5000")
        .containsEntry("http-client.apache.connection-timeout-ms", "5000")
        .containsEntry("http-client.apache.socket-timeout-ms", "10000")
        .containsEntry("http-client.urlconnection.socket-timeout-ms", "10000")
        .containsEntry("rest.client.connection-timeout-ms", "10000")
        .containsEntry("rest.client.socket-timeout-ms", "30000")
        // the PostgreSQL driver's names mean other things, in other units, to other drivers
        .doesNotContainKeys("jdbc.socketTimeout", "jdbc.connectTimeout", "jdbc.loginTimeout");

    Map<String, String> postgres =
        CatalogDefaults.apply(
            Map.of(
                "uri", "jdbc:postgresql://db:5432/iceberg?socketTimeout=90",
                "jdbc.connectTimeout", "2",
                "s3.retry.num-retries", "7"));
    assertThat(postgres)
        .containsEntry("jdbc.connectTimeout", "2")
        .containsEntry("jdbc.loginTimeout", "10")
        .containsEntry("s3.retry.num-retries", "7")
        .doesNotContainKey("jdbc.socketTimeout"); // the URL sets it
    assertThat(CatalogDefaults.apply(Map.of("uri", "jdbc:postgresql://db/iceberg")))
        .containsEntry("jdbc.socketTimeout", "30")
        .containsEntry("jdbc.connectTimeout", "5");
  }

  @Test
  void icebergLoadsTheReporter() {
    MetricsReporter reporter = CatalogUtil.loadMetricsReporter(CatalogDefaults.apply(Map.of()));
    assertThat(reporter).isInstanceOf(DebugMetricsReporter.class);
  }
}
