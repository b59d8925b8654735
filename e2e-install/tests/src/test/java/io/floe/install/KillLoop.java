package io.floe.install;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Kills brokers with SIGKILL, one at a time, again and again: each cycle picks the node that leads
 * most partitions of the tiered topics, waits (briefly) until its log shows a copy in flight, kills
 * it, starts it again on its data directory and waits until every replica is back in sync. Before
 * each kill it samples the copy lag and the plugin's longest copy, fetch and delete.
 *
 * <p>A restarted broker takes several seconds to make its first copy (Kafka's remote log manager
 * starts its tasks, then the plugin's first copy runs on a cold JVM), about as long as a cycle: a
 * partition whose leadership keeps going to the node killed next would tier nothing for as long as
 * the loop runs, whatever the plugin did. So a cycle first waits while a partition has tiered
 * nothing for {@link #PROGRESS_GRACE} with records waiting, until it tiers, or at most until it has
 * gone {@link KillRun#STALL_LIMIT_MS} without (the run's stall check then reports it): a partition
 * the plugin leaves stuck still shows as stuck, one whose leaders the loop kills too soon does not.
 */
final class KillLoop {
  /** How long a cycle waits for a copy in flight on the node it is about to kill. */
  static final Duration MID_COPY_WAIT = Duration.ofSeconds(3);

  /** How long a partition may tier nothing while records wait before a cycle waits for it. */
  static final Duration PROGRESS_GRACE = Duration.ofSeconds(20);

  private static final Duration PROGRESS_POLL = Duration.ofMillis(500);

  /** Log end and tiered end of every partition at one moment of the loop. */
  record Ends(long atMillis, Map<TopicPartition, Long> logEnd, Map<TopicPartition, Long> tiered) {
    long maxLag() {
      return logEnd.entrySet().stream()
          .mapToLong(e -> e.getValue() - 1 - tiered.get(e.getKey()))
          .max()
          .orElse(0);
    }
  }

  /**
   * One SIGKILL: the node, when (epoch millis), and since when the oldest copy its log showed in
   * flight had been running (-1 if none was).
   */
  record Kill(int node, long atMillis, long copyInFlightSince) {
    boolean midCopy() {
      return copyInFlightSince >= 0;
    }
  }

  /** What the loop did and saw. */
  record Stats(
      List<Kill> killed,
      long elapsedMillis,
      long minCycleMillis,
      long maxCycleMillis,
      Map<String, Long> maxLatencyMs,
      List<Ends> ends,
      int tieringWaits,
      long tieringWaitMillis) {
    int kills() {
      return killed.size();
    }

    long midCopyKills() {
      return killed.stream().filter(Kill::midCopy).count();
    }

    long maxCopyLagRecords() {
      return ends.stream().mapToLong(Ends::maxLag).max().orElse(0);
    }

    /** The sample nearest half way through the loop. */
    Ends halfWay() {
      return ends.stream()
          .min((a, b) -> Long.compare(dist(a), dist(b)))
          .orElseThrow(() -> new IllegalStateException("no sample"));
    }

    private long dist(Ends e) {
      return Math.abs(e.atMillis() - elapsedMillis / 2);
    }
  }

  private final ChildKafkaCluster cluster;
  private final Admin admin;
  private final List<TopicPartition> partitions;
  private final List<Integer> killable;
  private final Map<String, Long> maxLatencyMs = new TreeMap<>();
  private final TieringProgress progress = new TieringProgress();
  private int tieringWaits;
  private long tieringWaitMillis;

  /** A loop that kills only nodes of {@code killable}. */
  KillLoop(
      ChildKafkaCluster cluster,
      Admin admin,
      List<TopicPartition> partitions,
      List<Integer> killable) {
    this.cluster = cluster;
    this.admin = admin;
    this.partitions = partitions;
    this.killable = killable;
  }

  /** Runs cycles until at least {@code minKills} kills and {@code minDuration} have passed. */
  Stats run(int minKills, Duration minDuration) throws Exception {
    long start = System.nanoTime();
    List<Kill> killed = new ArrayList<>();
    long minCycle = Long.MAX_VALUE;
    long maxCycle = 0;
    List<Ends> ends = new ArrayList<>();
    int last = -1;
    while (killed.size() < minKills || elapsedMillis(start) < minDuration.toMillis()) {
      long cycleStart = System.nanoTime();
      sample(start, ends);
      awaitLaggingPartitions(start, ends);
      sampleLatencies();
      int target = mostLeaders(last);
      long inFlightSince = awaitCopyInFlight(target).orElse(-1);
      Kill kill = new Kill(target, System.currentTimeMillis(), inFlightSince);
      cluster.kill(target);
      killed.add(kill);
      last = target;
      cluster.restart(target);
      cluster.awaitStarted(target, Duration.ofMinutes(3));
      cluster.awaitFullIsr(admin, Duration.ofMinutes(3));
      long cycle = elapsedMillis(cycleStart);
      minCycle = Math.min(minCycle, cycle);
      maxCycle = Math.max(maxCycle, cycle);
      System.out.printf(
          "kill %d: node %d%s, back in every ISR after %d ms%n",
          killed.size(),
          target,
          kill.midCopy()
              ? ", copy in flight for " + (kill.atMillis() - inFlightSince) + " ms"
              : ", no copy in flight",
          cycle);
    }
    ends.add(ends(elapsedMillis(start)));
    sampleLatencies();
    return new Stats(
        killed,
        elapsedMillis(start),
        minCycle,
        maxCycle,
        new TreeMap<>(maxLatencyMs),
        ends,
        tieringWaits,
        tieringWaitMillis);
  }

  /**
   * Waits while some partition has tiered nothing for {@link #PROGRESS_GRACE} with records waiting,
   * until each such partition tiers, or one of them has gone {@link KillRun#STALL_LIMIT_MS}
   * without: waiting longer would only delay the stall check's verdict. Each sample joins {@code
   * ends}.
   */
  private void awaitLaggingPartitions(long start, List<Ends> ends) throws Exception {
    long waitStart = System.nanoTime();
    List<TopicPartition> waitedFor = List.of();
    while (true) {
      List<TopicPartition> lagging = new ArrayList<>();
      boolean stalled = false;
      for (TopicPartition tp : partitions) {
        long idle = progress.idleMillis(tp);
        if (idle >= PROGRESS_GRACE.toMillis()) {
          lagging.add(tp);
          stalled |= idle > KillRun.STALL_LIMIT_MS;
        }
      }
      if (lagging.isEmpty() || stalled) {
        break;
      }
      if (waitedFor.isEmpty()) {
        waitedFor = lagging;
        System.out.printf("kill loop: waiting for %s to tier before the next kill%n", lagging);
      }
      Thread.sleep(PROGRESS_POLL.toMillis()); // polling Kafka's offsets: no event to await
      sample(start, ends);
    }
    if (!waitedFor.isEmpty()) {
      long waited = elapsedMillis(waitStart);
      tieringWaits++;
      tieringWaitMillis += waited;
      System.out.printf("kill loop: waited %d ms for %s%n", waited, waitedFor);
    }
  }

  /** The killable node leading most partitions; of several, not the one killed last. */
  private int mostLeaders(int last) throws Exception {
    Map<Integer, Integer> leaders =
        ChildKafkaCluster.leaders(
            admin, partitions.stream().map(TopicPartition::topic).distinct().toList());
    int best = -1;
    leaders.keySet().retainAll(killable);
    for (Map.Entry<Integer, Integer> e : leaders.entrySet()) {
      if (best < 0
          || e.getValue() > leaders.get(best)
          || (e.getValue().equals(leaders.get(best)) && best == last)) {
        best = e.getKey();
      }
    }
    return best;
  }

  /** Since when a copy is in flight on {@code node}, once one is (empty if none in time). */
  private OptionalLong awaitCopyInFlight(int node) throws InterruptedException {
    CopyLog log = new CopyLog(cluster.currentLog(node));
    long deadline = System.nanoTime() + MID_COPY_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (log.copyInFlight()) {
        return log.inFlightSince();
      }
      Thread.sleep(20); // polling a log file: there is no event to await
    }
    return OptionalLong.empty();
  }

  /** The plugin's longest copy, fetch and delete on every running node (JMX, loopback). */
  void sampleLatencies() throws Exception {
    for (int id : ChildKafkaCluster.NODES) {
      if (cluster.isRunning(id)) {
        BrokerProbe.maxLatencies(cluster.jmxPort(id), id)
            .forEach((name, ms) -> maxLatencyMs.merge(name, ms, Math::max));
      }
    }
  }

  /** Samples the ends now into {@code ends} and the loop's tiering progress. */
  private void sample(long start, List<Ends> ends) throws Exception {
    Ends now = ends(elapsedMillis(start));
    ends.add(now);
    progress.sample(now);
  }

  Ends ends(long atMillis) throws Exception {
    return new Ends(atMillis, offsets(OffsetSpec.latest()), offsets(OffsetSpec.latestTiered()));
  }

  Map<TopicPartition, Long> offsets(OffsetSpec spec) throws Exception {
    return KillChecks.offsets(admin, partitions, spec);
  }

  private static long elapsedMillis(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
