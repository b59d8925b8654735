package io.floe.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.install.BrokerProbe.Resources;
import io.floe.install.KillRun.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The long SIGKILL loop of {@code make soak} (not part of {@code make test}: its name matches no
 * surefire default pattern, and it runs only when {@code floe.soak.minutes} is set). The set-up and
 * checks of {@link KillNineTest}, for {@code floe.soak.minutes} (and at least {@code
 * floe.soak.kills} kills), plus:
 *
 * <ul>
 *   <li>a {@link TierFollower} reading everything back from the tier, pass after pass, while the
 *       producer writes and brokers die;
 *   <li>node {@value #OBSERVER} is never killed, so its heap (used after a full GC), threads and
 *       open files at the start and the end of the loop show whether a long-lived broker stays flat
 *       through hundreds of leader changes; the killed nodes are sampled too;
 *   <li>commits per second into one table from three brokers ({@link CommitRate}), on the
 *       PostgreSQL catalog after the loop and on Iceberg's REST catalog in a cluster of its own.
 * </ul>
 *
 * Writes {@code floe.soak.report} (default {@code target/soak/report.json}).
 */
@EnabledIfSystemProperty(named = "floe.soak.minutes", matches = "\\d+(\\.\\d+)?")
class KillNineSoak {
  static final int OBSERVER = 3;
  private static final Path WORK =
      Path.of(System.getProperty("floe.install.work", "target/install-test")).resolve("soak");
  private static final Duration RATE_WINDOW = Duration.ofSeconds(30);

  @Test
  void soak() throws Exception {
    Duration minutes =
        Duration.ofSeconds(
            (long) (Double.parseDouble(System.getProperty("floe.soak.minutes")) * 60));
    int kills = Integer.parseInt(System.getProperty("floe.soak.kills", "0"));
    Path reportFile = Path.of(System.getProperty("floe.soak.report", "target/soak/report.json"));
    Map<String, Object> report = new LinkedHashMap<>();
    Outcome outcome;
    ReadBack followed;
    try (KillNineScenario s =
        KillNineScenario.start(WORK.resolve("postgres"), SharedServices.Kind.POSTGRES)) {
      KillRun run = new KillRun(s, KillNineTest.TICK);
      run.startProducing();
      Map<Integer, Resources> atStart = sample(s.cluster);
      int passes;
      try (TierFollower follower = new TierFollower(s.checks(), run.ledger(), s.partitions)) {
        run.killLoop(kills, minutes, List.of(1, 2));
        followed = follower.stop();
        passes = follower.passes();
      }
      run.stopProducing();
      outcome = run.check();
      Map<Integer, Resources> atEnd = sample(s.cluster);
      System.out.println("KillNineSoak: " + KillNineTest.summary(outcome, 0));
      System.out.println("KillNineSoak: tier follower, " + passes + " passes: " + followed);
      fill(report, minutes, outcome, followed, passes, atStart, atEnd);
      write(report, reportFile);
      rate(report, "postgres", CommitRate.measure(s, RATE_WINDOW));
      write(report, reportFile);
    }
    try (KillNineScenario rest =
        KillNineScenario.start(WORK.resolve("rest"), SharedServices.Kind.REST)) {
      rate(report, "rest", CommitRate.measure(rest, RATE_WINDOW));
    }
    write(report, reportFile);

    assertThat(outcome.problems()).isEmpty();
    assertThat(followed.clean()).as("tier follower: %s", followed).isTrue();
  }

  /** Writes the report as it is so far: a run cut short still leaves what it measured. */
  private static void write(Map<String, Object> report, Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), report);
    System.out.println("KillNineSoak: report " + file.toAbsolutePath() + ": " + report);
  }

  private static Map<Integer, Resources> sample(ChildKafkaCluster cluster) throws Exception {
    Map<Integer, Resources> out = new TreeMap<>();
    for (int id : ChildKafkaCluster.NODES) {
      out.put(id, BrokerProbe.resources(cluster.process(id).pid(), cluster.jmxPort(id)));
    }
    return out;
  }

  private static void fill(
      Map<String, Object> report,
      Duration minutes,
      Outcome o,
      ReadBack followed,
      int passes,
      Map<Integer, Resources> atStart,
      Map<Integer, Resources> atEnd) {
    report.put("soak_minutes", minutes.toSeconds() / 60.0);
    report.put("kill_loop_seconds", o.stats().elapsedMillis() / 1000);
    report.put("kill9_cycles", o.stats().kills());
    report.put("kill9_mid_copy", o.stats().midCopyKills());
    report.put(
        "kill_cycle_ms",
        Map.of("min", o.stats().minCycleMillis(), "max", o.stats().maxCycleMillis()));
    report.put(
        "kill_loop_tiering_waits",
        Map.of("count", o.stats().tieringWaits(), "ms", o.stats().tieringWaitMillis()));
    report.put("acked_records", o.acked());
    report.put("failed_sends", o.failedSends());
    report.put("lost_records", o.lost() + followed.lost + followed.gaps);
    report.put("duplicate_records", o.duplicates() + followed.duplicates);
    long maxWait =
        o.stats().maxLatencyMs().values().stream().mapToLong(Long::longValue).max().orElse(0);
    report.put("max_thread_wait_ms", maxWait);
    report.put("max_plugin_latency_ms", o.stats().maxLatencyMs());
    report.put("orphan_files", o.audit().orphans().size());
    report.put("orphans_by_cause", o.orphanCounts());
    report.put("orphans", o.orphans());
    report.put("unreferenced_metadata_files", o.audit().unreferencedMetadataFiles());
    Resources start = atStart.get(OBSERVER);
    Resources end = atEnd.get(OBSERVER);
    report.put(
        "heap_growth_mib",
        (end.heapUsedAfterGcBytes() - start.heapUsedAfterGcBytes()) / (1024.0 * 1024));
    report.put("threads_start", start.threads());
    report.put("threads_end", end.threads());
    report.put("open_files_start", start.openFiles());
    report.put("open_files_end", end.openFiles());
    report.put("brokers", Map.of("start", atStart, "end", atEnd));
    report.put("copy_lag_max_records", o.stats().maxCopyLagRecords());
    KillLoop.Ends last = o.stats().ends().get(o.stats().ends().size() - 1);
    report.put("copy_lag_at_loop_end_records", last.maxLag());
    report.put("copies", o.copies());
    report.put(
        "tier_follower",
        Map.of(
            "passes", passes, "records_read", followed.records, "problems", followed.toString()));
    report.put("phase_seconds", o.phaseSeconds());
  }

  @SuppressWarnings("unchecked")
  private static void rate(Map<String, Object> report, String catalog, CommitRate.Result r) {
    Map<String, Object> load = new LinkedHashMap<>();
    load.put("partitions", CommitRate.PARTITIONS);
    load.put("segment_ms", CommitRate.SEGMENT_MS);
    load.put("record_every_ms", CommitRate.TICK_MS);
    load.put("offered_segments_per_s", CommitRate.PARTITIONS * 1000 / CommitRate.SEGMENT_MS);
    load.put("window_s", RATE_WINDOW.toSeconds());
    report.putIfAbsent("commit_rate_load", load);
    ((Map<String, Object>)
            report.computeIfAbsent("commits_per_s_3_brokers", k -> new LinkedHashMap<>()))
        .put(catalog, Math.round(r.perSecond() * 10) / 10.0);
    ((Map<String, Object>)
            report.computeIfAbsent("commit_rate_snapshots_per_s", k -> new LinkedHashMap<>()))
        .put(catalog, Math.round(r.snapshotsPerSecond() * 10) / 10.0);
    ((Map<String, Object>)
            report.computeIfAbsent("commit_rate_failed_copies", k -> new LinkedHashMap<>()))
        .put(catalog, r.failedCopies());
    ((Map<String, Object>)
            report.computeIfAbsent("commit_rate_segments_per_node", k -> new LinkedHashMap<>()))
        .put(catalog, r.perNode());
    CopyLog.CopyTimes t = r.times();
    Map<String, Object> times = new LinkedHashMap<>();
    times.put("copies", t.copies());
    times.put("kafka_ms", Math.round(t.kafkaMs()));
    times.put("floe_ms", Math.round(t.floeMs()));
    times.put("commit_ms", Math.round(t.commitMs()));
    ((Map<String, Object>)
            report.computeIfAbsent("commit_rate_copy_ms", k -> new LinkedHashMap<>()))
        .put(catalog, times);
    System.out.printf(
        "KillNineSoak: %s: %d segments committed (by leading node %s) in %d snapshots in %.1f s ="
            + " %.1f/s, %d failed copies; per copy %s%n",
        catalog,
        r.segments(),
        r.perNode(),
        r.snapshots(),
        r.seconds(),
        r.perSecond(),
        r.failedCopies(),
        times);
  }
}
