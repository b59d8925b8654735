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
  void icebergLoadsTheReporter() {
    MetricsReporter reporter = CatalogUtil.loadMetricsReporter(CatalogDefaults.apply(Map.of()));
    assertThat(reporter).isInstanceOf(DebugMetricsReporter.class);
  }
}
