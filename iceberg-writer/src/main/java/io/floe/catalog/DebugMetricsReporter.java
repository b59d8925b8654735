package io.floe.catalog;

import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg's scan and commit reports at DEBUG. Iceberg's default reporter logs every report at INFO:
 * on a broker that is a multi-line dump for every copy and fetch, which buries the one line per
 * copy an operator needs. Set {@code iceberg.metrics-reporter-impl} to route reports elsewhere.
 */
public final class DebugMetricsReporter implements MetricsReporter {
  private static final Logger LOG = LoggerFactory.getLogger(DebugMetricsReporter.class);

  @Override
  public void report(MetricsReport report) {
    LOG.debug("{}", report);
  }
}
