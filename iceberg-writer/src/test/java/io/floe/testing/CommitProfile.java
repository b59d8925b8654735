package io.floe.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall-clock sampling profiler of copier threads: every few milliseconds it takes their stacks
 * and files each sample under the phase of a copy it is in (writing the segment, planning, staging
 * a snapshot, the catalog commit, a refresh, a backoff) and the operation inside that phase
 * (metadata.json read or write, manifest or manifest-list write, validation, the catalog's
 * compare-and-swap). For measurements, not assertions.
 */
public final class CommitProfile implements AutoCloseable {
  private final Set<Long> threads = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicLong> samples = new ConcurrentHashMap<>();
  private final AtomicLong total = new AtomicLong();
  private final Map<String, StackTraceElement[]> examples = new ConcurrentHashMap<>();
  private final Thread sampler;
  private volatile boolean running = true;

  public CommitProfile(long intervalMs) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    sampler =
        new Thread(
            () -> {
              while (running) {
                long[] ids = threads.stream().mapToLong(Long::longValue).toArray();
                for (ThreadInfo info : mx.getThreadInfo(ids, 200)) {
                  if (info != null && info.getStackTrace().length > 0) {
                    total.incrementAndGet();
                    String label = classify(info.getStackTrace());
                    samples.computeIfAbsent(label, k -> new AtomicLong()).incrementAndGet();
                    examples.putIfAbsent(label, info.getStackTrace());
                  }
                }
                try {
                  Thread.sleep(intervalMs);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "commit-profile");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Samples the calling thread from now on. */
  public void register() {
    threads.add(Thread.currentThread().getId());
  }

  public void unregister() {
    threads.remove(Thread.currentThread().getId());
  }

  /** Share of samples per phase/operation, largest first. */
  public String report() {
    long n = Math.max(1, total.get());
    Map<String, Long> phases = new TreeMap<>();
    samples.forEach((k, v) -> phases.merge(k.substring(0, k.indexOf(' ')), v.get(), Long::sum));
    List<Map.Entry<String, AtomicLong>> rows = new ArrayList<>(samples.entrySet());
    rows.sort((a, b) -> Long.compare(b.getValue().get(), a.getValue().get()));
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "  %d samples; by phase:%n", total.get()));
    phases.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
        .forEach(
            e ->
                out.append(
                    String.format(
                        Locale.ROOT, "    %5.1f%%  %s%n", 100.0 * e.getValue() / n, e.getKey())));
    out.append("  by phase and operation:\n");
    for (Map.Entry<String, AtomicLong> e : rows) {
      double share = 100.0 * e.getValue().get() / n;
      if (share >= 0.5) {
        out.append(String.format(Locale.ROOT, "    %5.1f%%  %s%n", share, e.getKey()));
      }
    }
    if (Boolean.getBoolean("floe.commitRate.stacks")) {
      examples.forEach(
          (label, stack) -> {
            out.append("  example of ").append(label).append(":\n");
            for (int i = 0; i < Math.min(40, stack.length); i++) {
              out.append("      at ").append(stack[i]).append('\n');
            }
          });
    }
    return out.toString();
  }

  static String classify(StackTraceElement[] stack) {
    return phase(stack) + " " + operation(stack);
  }

  private static String phase(StackTraceElement[] stack) {
    // innermost first: the phase is the most specific step of a copy the thread is in
    for (int i = 0; i < stack.length; i++) {
      String c = stack[i].getClassName();
      String m = stack[i].getMethodName();
      if (c.endsWith("GroupCommit$Waiter") && m.equals("awaitTurnOrResult")) {
        return "wait-for-group";
      }
      if (m.equals("committedFiles")) {
        return "txn-after-commit-cleanup";
      }
      if ((c.endsWith("BaseMetastoreTableOperations") || c.endsWith("RESTTableOperations"))
          && m.equals("commit")) {
        return "catalog-commit";
      }
      if (c.endsWith("TableOperations") && !c.contains("Transaction") && m.equals("refresh")) {
        return "refresh(" + caller(stack, i) + ")";
      }
      if (c.endsWith("SnapshotProducer") && m.equals("commit")) {
        return caller(stack, i).equals("applyUpdates") ? "txn-reapply-delta" : "stage-delta";
      }
      if (c.endsWith("BaseTransaction") && m.equals("commitTransaction")) {
        return "txn-other";
      }
      if (c.endsWith("SegmentWriter") && m.equals("write")) {
        return "write-segment";
      }
      if (c.endsWith("SidecarObjects")) {
        return "write-sidecar";
      }
      if (c.endsWith("CommitPlanner")) {
        return "plan";
      }
      if (c.endsWith("SegmentCommitter") && m.equals("hideRows")) {
        return "write-deletes";
      }
      if (c.endsWith("GroupCommit") && !m.equals("commit")) {
        return "group:" + m;
      }
      if (c.endsWith("SegmentCommitter")) {
        return "committer:" + m;
      }
    }
    return "other";
  }

  /** The nearest outer frame of a known step. */
  private static String caller(StackTraceElement[] stack, int from) {
    for (int i = from + 1; i < stack.length; i++) {
      String m = stack[i].getMethodName();
      if (m.equals("applyUpdates")
          || m.equals("loadCommitted")
          || m.equals("commitGroup")
          || m.equals("attempt")) {
        return m;
      }
    }
    return "?";
  }

  private static String operation(StackTraceElement[] stack) {
    // innermost first: the operation is what the thread is doing right now
    for (int i = 0; i < stack.length; i++) {
      StackTraceElement e = stack[i];
      String c = e.getClassName();
      String m = e.getMethodName();
      if (m.equals("sleep") && c.equals("java.lang.Thread")) {
        StackTraceElement by = stack[Math.min(i + 1, stack.length - 1)];
        String cls = by.getClassName();
        return "sleep@" + cls.substring(cls.lastIndexOf('.') + 1) + "." + by.getMethodName();
      }
      if (c.startsWith("org.postgresql")) {
        return "jdbc:" + jdbcOp(stack);
      }
      if (c.endsWith("TableMetadataParser") && (m.equals("write") || m.equals("internalWrite"))) {
        return "metadata.json-write";
      }
      if (c.endsWith("TableMetadataParser") && (m.equals("read") || m.equals("fromJson"))) {
        return "metadata.json-read";
      }
      if (c.endsWith("JdbcUtil") || c.startsWith("org.postgresql")) {
        return "jdbc:" + jdbcOp(stack);
      }
      if (c.endsWith("ManifestListWriter") || c.endsWith("ManifestLists") && m.equals("write")) {
        return "manifest-list-write";
      }
      if (c.endsWith("ManifestWriter") || c.endsWith("RollingManifestWriter")) {
        return "manifest-write";
      }
      if (c.endsWith("ManifestLists") && m.equals("read")) {
        return "manifest-list-read";
      }
      if (m.startsWith("validate")) {
        return "validation";
      }
      if (c.endsWith("ManifestReader") || c.endsWith("ManifestGroup")) {
        return "manifest-read";
      }
    }
    return "other";
  }

  private static String jdbcOp(StackTraceElement[] stack) {
    for (StackTraceElement e : stack) {
      if (e.getClassName().endsWith("JdbcUtil")
          || e.getClassName().endsWith("JdbcTableOperations")) {
        return e.getMethodName();
      }
    }
    return "?";
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    sampler.interrupt();
    sampler.join();
  }
}
