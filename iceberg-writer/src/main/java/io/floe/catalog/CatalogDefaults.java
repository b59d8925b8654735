package io.floe.catalog;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;

/**
 * Catalog properties Floe sets unless the user set them. Every copy plans against, validates
 * against and commits on top of the manifests and manifest lists of the latest snapshots; they are
 * immutable, so caching their content in the catalog's FileIO saves reading each of them once per
 * copy. Iceberg's scan and commit reports go to {@link DebugMetricsReporter} instead of INFO.
 */
public final class CatalogDefaults {
  static final long MANIFEST_CACHE_BYTES = 32L << 20;

  private CatalogDefaults() {}

  /** {@code properties} plus the defaults it does not override. */
  public static Map<String, String> apply(Map<String, String> properties) {
    Map<String, String> out = new HashMap<>(properties);
    out.putIfAbsent(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true");
    out.putIfAbsent(
        CatalogProperties.IO_MANIFEST_CACHE_MAX_TOTAL_BYTES, Long.toString(MANIFEST_CACHE_BYTES));
    out.putIfAbsent(CatalogProperties.METRICS_REPORTER_IMPL, DebugMetricsReporter.class.getName());
    return out;
  }
}
