package io.floe.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.install.KillRun.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three Kafka 4.4.0 broker processes tier into one JDBC catalog on PostgreSQL while an idempotent
 * producer writes continuously, and the broker leading most partitions is killed with SIGKILL
 * (mid-copy when its log shows a copy in flight), started again on its data directory and awaited
 * back in every ISR, {@value #KILLS} times. Then the producer stops and:
 *
 * <ul>
 *   <li>tiering was never stuck: while brokers were being killed, no partition went 45 s without
 *       tiering anything while records waited ({@link KillRun#STALL_LIMIT_MS}); and once producing
 *       stops, every partition's remote log end offset reaches its log end offset - 1 (everything
 *       tiered) and its local log starts at its log end (nothing left locally);
 *   <li>consumers at read_committed and read_uncommitted, from offset 0, so from the tier only,
 *       read each acked record exactly once at the offset its ack named, a record whose send failed
 *       at most once, nothing else, no offset missing;
 *   <li>each topic table, read with Iceberg generics through the same catalog, holds each offset
 *       from 0 through the tiered end exactly once, with the acked record;
 *   <li>the orphan audit finds no object that nothing references and nothing referenced missing;
 *       the plugin refused no segment.
 * </ul>
 */
class KillNineTest {
  static final int KILLS = 20;
  static final Duration TICK = Duration.ofMillis(50);
  private static final Path WORK =
      Path.of(System.getProperty("floe.install.work", "target/install-test")).resolve("kill9");

  @Test
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void sigkilledLeadersLoseNothingAndDuplicateNothing() throws Exception {
    long start = System.nanoTime();
    Outcome outcome;
    try (KillNineScenario s = KillNineScenario.start(WORK, SharedServices.Kind.POSTGRES)) {
      long setup = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      KillRun run = new KillRun(s, TICK);
      run.startProducing();
      run.killLoop(KILLS, Duration.ZERO, ChildKafkaCluster.NODES);
      run.stopProducing();
      outcome = run.check();
      System.out.println(summary(outcome, setup));
    }
    assertThat(outcome.stats().kills()).isGreaterThanOrEqualTo(KILLS);
    assertThat(outcome.problems()).isEmpty();
  }

  static String summary(Outcome o, long setupSeconds) {
    return String.format(
        "%d kills (%d mid-copy) in %d s, cycles %d..%d ms, %d waits for tiering (%d ms);"
            + " %d acked records, %d failed sends;"
            + " max copy lag %d records; tiering margins at the loop's end %s;"
            + " max plugin latencies %s; copies %s;"
            + " reads %s; table %s; audit %s; outside tables %s; orphans %s; seconds: setup %d, %s",
        o.stats().kills(),
        o.stats().midCopyKills(),
        o.stats().elapsedMillis() / 1000,
        o.stats().minCycleMillis(),
        o.stats().maxCycleMillis(),
        o.stats().tieringWaits(),
        o.stats().tieringWaitMillis(),
        o.acked(),
        o.failedSends(),
        o.stats().maxCopyLagRecords(),
        o.tieringMargins(),
        o.stats().maxLatencyMs(),
        o.copies(),
        o.reads(),
        o.rows(),
        o.audit().tables(),
        o.audit().outsideTables(),
        o.orphans(),
        setupSeconds,
        o.phaseSeconds());
  }
}
