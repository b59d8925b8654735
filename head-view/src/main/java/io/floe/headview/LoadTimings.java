package io.floe.headview;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Where one request spent its time, per phase, in the order the phases first ran. Sent back as an
 * HTTP {@code Server-Timing} header so that a client (the head-view benchmark) sees the split
 * without a profiler. Confined to the request's thread.
 */
final class LoadTimings {
  private final Map<String, Long> nanos = new LinkedHashMap<>();
  private long last = System.nanoTime();

  /** Charges the time since the previous mark to {@code phase}. */
  void mark(String phase) {
    long now = System.nanoTime();
    nanos.merge(phase, now - last, Long::sum);
    last = now;
  }

  /** Like {@link #mark}, but {@code partNanos} of that time go to {@code part} instead. */
  void mark(String phase, String part, long partNanos) {
    long now = System.nanoTime();
    nanos.merge(part, partNanos, Long::sum);
    nanos.merge(phase, now - last - partNanos, Long::sum);
    last = now;
  }

  Map<String, Long> nanos() {
    return nanos;
  }

  /** {@code phase;dur=milliseconds, ...} as the Server-Timing header wants it. */
  String header() {
    StringJoiner out = new StringJoiner(", ");
    nanos.forEach((phase, n) -> out.add(String.format(Locale.ROOT, "%s;dur=%.2f", phase, n / 1e6)));
    return out.toString();
  }
}
