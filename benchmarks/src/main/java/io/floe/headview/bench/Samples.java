package io.floe.headview.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Latency samples in milliseconds, with nearest-rank percentiles. */
final class Samples {
  private final List<Double> values = new ArrayList<>();

  void add(double ms) {
    values.add(ms);
  }

  void addNanos(long nanos) {
    values.add(nanos / 1e6);
  }

  int count() {
    return values.size();
  }

  double percentile(double q) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(q * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  double p50() {
    return percentile(0.50);
  }

  double p99() {
    return percentile(0.99);
  }

  double max() {
    return percentile(1.0);
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT, "n=%d p50=%.1f p99=%.1f max=%.1f", count(), p50(), p99(), max());
  }
}
