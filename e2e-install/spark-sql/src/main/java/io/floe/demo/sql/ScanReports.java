package io.floe.demo.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.ScanReport;

/**
 * Iceberg {@link MetricsReporter} (catalog property {@code metrics-reporter-impl}) that keeps the
 * scan reports of this JVM, so that {@link SparkQuery} can print, per statement, how many data
 * files each scan planned and skipped.
 */
public final class ScanReports implements MetricsReporter {
  private static final ConcurrentLinkedQueue<ScanReport> REPORTS = new ConcurrentLinkedQueue<>();

  @Override
  public void report(MetricsReport report) {
    if (report instanceof ScanReport scan) {
      REPORTS.add(scan);
    }
  }

  /** The reports since the last call. */
  static List<ScanReport> drain() {
    List<ScanReport> out = new ArrayList<>();
    for (ScanReport r = REPORTS.poll(); r != null; r = REPORTS.poll()) {
      out.add(r);
    }
    return out;
  }
}
