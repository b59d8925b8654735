package io.floe.install;

import io.floe.install.KillChecks.Audit;
import io.floe.install.KillLoop.Stats;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * One SIGKILL run on a {@link KillNineScenario}, in phases a test calls in order: produce, kill in
 * a loop, stop producing, then {@link #check}: wait for tiering to catch up and read everything
 * back from Kafka's tier and from the tables.
 */
final class KillRun {
  /**
   * Longest a partition may go without tiering anything while records wait: a stall. Copies came at
   * least every 20 s per partition in the slowest runs seen (leaders killed every 4 to 8 s,
   * segments rolled every 6 to 9 s, copies of 3 to 5 s with the machine loaded); the stall refused
   * overlapping copies once caused lasted minutes.
   */
  static final long STALL_LIMIT_MS = 45_000;

  /** Everything a run found; {@link #problems} lists what breaks the promise. */
  record Outcome(
      Stats stats,
      Map<String, String> orphans,
      Map<IsolationLevel, ReadBack> reads,
      ReadBack rows,
      Audit audit,
      CopyLog.Counts copies,
      long acked,
      long failedSends,
      List<String> stalledDuringLoop,
      Map<TopicPartition, Long> tieringMargins,
      Map<String, Long> phaseSeconds) {

    /** Lost and duplicated records over both consumers and the table. */
    long lost() {
      return rows.lost + rows.gaps + reads.values().stream().mapToLong(r -> r.lost + r.gaps).sum();
    }

    long duplicates() {
      return rows.duplicates + reads.values().stream().mapToLong(r -> r.duplicates).sum();
    }

    /** Orphans by explanation ({@link KillChecks#KILLED}, {@link KillChecks#FAILED}, none). */
    Map<String, Long> orphanCounts() {
      Map<String, Long> out = new TreeMap<>();
      orphans
          .values()
          .forEach(
              why ->
                  out.merge(
                      why == null ? "unexplained" : why.substring(0, why.indexOf(':')),
                      1L,
                      Long::sum));
      return out;
    }

    List<String> problems() {
      List<String> out = new ArrayList<>(stalledDuringLoop);
      reads.forEach(
          (isolation, read) -> {
            if (!read.clean() || read.records < acked) {
              out.add("consumer at " + isolation + ": " + read + " (" + acked + " acked)");
            }
          });
      if (!rows.clean()) {
        out.add("table rows: " + rows);
      }
      if (!audit.missing().isEmpty()) {
        out.add("objects referenced but missing: " + audit.missing());
      }
      orphans.forEach(
          (orphan, why) -> {
            if (why == null) {
              out.add(
                  "an object nothing references that no killed or failed copy explains: " + orphan);
            }
          });
      if (copies.refused() > 0) {
        out.add(copies.refused() + " segments refused by the plugin");
      }
      return out;
    }
  }

  private final KillNineScenario scenario;
  private final Duration tick;
  private final AckLedger ledger = new AckLedger();
  private final Map<String, Long> phaseSeconds = new LinkedHashMap<>();
  private PacedProducer producer;
  private Stats stats;
  private long phaseStart = System.nanoTime();

  KillRun(KillNineScenario scenario, Duration tick) {
    this.scenario = scenario;
    this.tick = tick;
  }

  AckLedger ledger() {
    return ledger;
  }

  /** Starts the producer and waits until every partition has tiered something. */
  void startProducing() {
    producer =
        new PacedProducer(scenario.cluster.bootstrapServers(), scenario.partitions, ledger, tick);
    scenario.awaitTieringEverywhere();
    phase("first copies");
  }

  /** Kills nodes of {@code killable} until both {@code minKills} and {@code minDuration}. */
  Stats killLoop(int minKills, Duration minDuration, List<Integer> killable) throws Exception {
    stats =
        new KillLoop(scenario.cluster, scenario.admin, scenario.partitions, killable)
            .run(minKills, minDuration);
    phase("kill loop");
    return stats;
  }

  void stopProducing() throws InterruptedException {
    producer.stop();
    producer.close();
    phase("producer stop");
  }

  /**
   * Awaits everything tiered and read from the tier only, then reads every partition back at both
   * isolation levels, reads the tables and audits the warehouse.
   */
  Outcome check() throws Exception {
    KillChecks checks = scenario.checks();
    Map<TopicPartition, Long> end = checks.awaitAllTieredAndRemoteOnly(Duration.ofMinutes(3));
    phase("tiering catches up");
    Map<IsolationLevel, ReadBack> reads = new EnumMap<>(IsolationLevel.class);
    for (IsolationLevel isolation : IsolationLevel.values()) {
      reads.put(isolation, checks.consume(ledger, isolation, end, Duration.ofMinutes(3)));
    }
    phase("consumers");
    Map<TopicPartition, Long> tieredEnd = new HashMap<>(end);
    tieredEnd.replaceAll((tp, e) -> e - 1);
    Catalog catalog = scenario.services.client(scenario.catalog);
    ReadBack rows;
    Audit audit;
    try {
      rows = checks.tableRows(ledger, catalog, tieredEnd);
      phase("table");
      audit = checks.audit(catalog, scenario.warehouse);
      phase("audit");
    } finally {
      ((Closeable) catalog).close();
    }
    List<Path> logs = scenario.cluster.logs();
    return new Outcome(
        stats,
        audit.explain(stats.killed(), CopyLog.failedCopies(logs)),
        reads,
        rows,
        audit,
        CopyLog.count(logs),
        ledger.ackedCount(),
        ledger.failedCount(),
        stalledDuringLoop(),
        tieringMargins(),
        phaseSeconds);
  }

  /**
   * Tiering was never stuck while brokers were killed: no partition went {@link #STALL_LIMIT_MS}
   * without tiering anything while its log held records not tiered yet. A partition that stops
   * tiering for good (as refused overlapping copies once made one) shows as such a gap; a partition
   * that tiers more slowly than it is produced to while its leaders keep being killed does not, and
   * the check after the loop (everything tiered once producing stops) bounds how far behind it got.
   */
  private List<String> stalledDuringLoop() {
    TieringProgress progress = new TieringProgress();
    Map<TopicPartition, String> stalls = new HashMap<>();
    for (KillLoop.Ends e : stats.ends()) {
      progress.sample(e);
      for (TopicPartition tp : scenario.partitions) {
        if (!stalls.containsKey(tp) && progress.idleMillis(tp) > STALL_LIMIT_MS) {
          TieringProgress.Mark mark = progress.mark(tp);
          stalls.put(
              tp,
              tp
                  + " tiered nothing past "
                  + mark.tiered()
                  + " from "
                  + mark.atMillis() / 1000
                  + " s to "
                  + e.atMillis() / 1000
                  + " s into the kill loop, its log ending at "
                  + e.logEnd().get(tp));
        }
      }
    }
    return scenario.partitions.stream().filter(stalls::containsKey).map(stalls::get).toList();
  }

  /**
   * How far each partition's tiering was past what it held half way through the loop, at the loop's
   * end (negative: behind): how far tiering kept up with producing while leaders were killed,
   * printed so that a run shows it.
   */
  private Map<TopicPartition, Long> tieringMargins() {
    KillLoop.Ends half = stats.halfWay();
    KillLoop.Ends last = stats.ends().get(stats.ends().size() - 1);
    Map<TopicPartition, Long> out = new LinkedHashMap<>();
    for (TopicPartition tp : scenario.partitions) {
      out.put(tp, last.tiered().get(tp) - (half.logEnd().get(tp) - 1));
    }
    return out;
  }

  private void phase(String name) {
    long now = System.nanoTime();
    phaseSeconds.put(name, TimeUnit.NANOSECONDS.toSeconds(now - phaseStart));
    phaseStart = now;
    System.out.println("KillRun: " + name + " done, seconds so far " + phaseSeconds);
  }
}
