package io.floe.headview;

import io.floe.headview.HeadPlan.Action;
import io.floe.headview.HeadPlan.Trim;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import io.floe.headview.HeadWriter.Span;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableMetadata;

/**
 * Decides what a loadTable does with a table's cached head: from the cached head, the committed
 * snapshot's boundaries and Kafka's offsets to a {@link HeadPlan} (reuse, extend with the new
 * ranges, or rebuild keeping the files wholly past the new boundary). No I/O and no state: {@link
 * HeadView} gathers the inputs and carries the plan out.
 */
final class HeadPlanner {
  /**
   * Extensions append a snapshot each; past this many the head is rebuilt as one snapshot over the
   * same files, so that the metadata (written and sent on every load) stays small while the real
   * table does not move.
   */
  static final int MAX_HEAD_SNAPSHOTS = 8;

  private HeadPlanner() {}

  /**
   * What head files are written for: a file of one table, schema and set of specs fits only a view
   * of the same.
   */
  record TableShape(
      String uuid, int schemaId, int defaultSpecId, Map<Integer, PartitionSpec> specs) {
    static TableShape of(TableMetadata metadata) {
      return new TableShape(
          metadata.uuid(),
          metadata.currentSchemaId(),
          metadata.defaultSpecId(),
          metadata.specsById());
    }
  }

  /**
   * The cached head, as far as planning goes.
   *
   * @param baseLocation metadata location of the committed metadata it was built on
   * @param shape the shape of its view
   * @param headSnapshots how many snapshots it added on top of the committed ones
   * @param from per partition, where it starts
   * @param to per partition, where it ends (exclusive)
   * @param files its data files
   */
  record Cached(
      String baseLocation,
      TableShape shape,
      int headSnapshots,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      List<HeadFile> files) {}

  /**
   * What a load found.
   *
   * @param baseLocation metadata location of the committed metadata (null for a staged table)
   * @param shape the shape a view of it has; asked only when a rebuild could carry files over (it
   *     builds metadata, which a load that reuses or extends the head does not need)
   * @param committedEnds per partition, the offset after the last one the committed snapshot holds
   * @param partitions the topic's partitions in Kafka
   * @param logStarts per partition, Kafka's log start offset
   * @param lastStable per partition, Kafka's last stable offset
   */
  record Found(
      String baseLocation,
      Supplier<TableShape> shape,
      Map<Integer, Long> committedEnds,
      List<Integer> partitions,
      Map<Integer, Long> logStarts,
      Map<Integer, Long> lastStable) {}

  /** The plan for a load that found {@code found}, with {@code cached} (null: none) cached. */
  static HeadPlan plan(Cached cached, Found found) {
    // Per partition the head covers [from, to): past the committed records and the log start, up
    // to the last stable offset.
    Map<Integer, Long> from = new TreeMap<>();
    Map<Integer, Long> to = new TreeMap<>();
    for (int p : found.partitions()) {
      from.put(
          p,
          Math.max(
              found.committedEnds().getOrDefault(p, 0L), found.logStarts().getOrDefault(p, 0L)));
      to.put(p, found.lastStable().getOrDefault(p, 0L));
    }
    if (cached != null && Objects.equals(cached.baseLocation(), found.baseLocation())) {
      if (cached.to().equals(to)) {
        return new HeadPlan(
            Action.REUSE,
            cached.from(),
            cached.from(),
            cached.to(),
            List.of(),
            List.of(),
            List.of(),
            List.of());
      }
      if (grows(cached.to(), to) && cached.headSnapshots() < MAX_HEAD_SNAPSHOTS) {
        Map<Integer, Long> newFrom = new TreeMap<>();
        from.forEach((p, f) -> newFrom.put(p, Math.max(f, cached.to().getOrDefault(p, f))));
        return new HeadPlan(
            Action.EXTEND,
            cached.from(),
            newFrom,
            to,
            List.of(),
            List.of(),
            List.of(),
            List.of(new Ranges(newFrom, to)));
      }
    }
    if (cached == null || !reusable(cached, found, from, to)) {
      return new HeadPlan(
          Action.REBUILD,
          from,
          from,
          to,
          List.of(),
          List.of(),
          cached == null ? List.of() : cached.files(),
          List.of(new Ranges(from, to)));
    }
    // The committed table moved on (a segment was tiered): keep the old head's files that lie
    // wholly past the new boundary, and those of one partition that straddle it with their rows
    // below it hidden; read only what is not in them.
    Map<Integer, Long> cut = new TreeMap<>(from);
    boolean[] dropped = droppedFiles(cached.files(), cut);
    List<HeadFile> kept = new ArrayList<>();
    List<Trim> trimmed = new ArrayList<>();
    List<HeadFile> gone = new ArrayList<>();
    for (int i = 0; i < dropped.length; i++) {
      HeadFile f = cached.files().get(i);
      if (dropped[i]) {
        gone.add(f);
      } else if (below(f, cut)) {
        int p = f.offsets().keySet().iterator().next();
        trimmed.add(new Trim(f, p, cut.get(p)));
      } else {
        kept.add(f);
      }
    }
    Map<Integer, Long> toCut = new TreeMap<>();
    Map<Integer, Long> afterOld = new TreeMap<>();
    for (int p : from.keySet()) {
      long c = cut.get(p);
      toCut.put(p, Math.min(c, to.get(p)));
      afterOld.put(p, Math.max(c, cached.to().getOrDefault(p, c)));
    }
    return new HeadPlan(
        Action.REBUILD,
        from,
        from,
        to,
        kept,
        trimmed,
        gone,
        List.of(new Ranges(from, toCut, true), new Ranges(afterOld, to)));
  }

  /** Whether no partition of {@code before} is missing or lower in {@code now}. */
  private static boolean grows(Map<Integer, Long> before, Map<Integer, Long> now) {
    for (Map.Entry<Integer, Long> e : before.entrySet()) {
      Long n = now.get(e.getKey());
      if (n == null || n < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the cached head's files may be carried over to a head on what was found: same table,
   * schema and specs, no partition's start went back (a rolled-back table) and no partition's end
   * went back (a truncated log).
   */
  private static boolean reusable(
      Cached old, Found found, Map<Integer, Long> from, Map<Integer, Long> to) {
    for (Map.Entry<Integer, Long> e : old.to().entrySet()) {
      Long now = to.get(e.getKey());
      Long start = from.get(e.getKey());
      Long oldStart = old.from().get(e.getKey());
      if (now == null
          || now < e.getValue()
          || start == null
          || oldStart == null
          || start < oldStart) {
        return false;
      }
    }
    return old.shape().equals(found.shape().get());
  }

  /**
   * Which of the files to drop so that the others hold only offsets at or past a per-partition cut
   * once the rows below it of those of one partition are hidden, and that cut (updated in {@code
   * cut}, which starts at the new boundary). A file of several partitions with any offset below the
   * cut of one of them is dropped and moves the cut of each of its partitions past its last offset
   * there, until nothing moves; a file of one partition is dropped only when all of it is below its
   * cut (which then moves nothing). Then no offset at or past a cut is in a dropped file: the other
   * files, past their cut, hold exactly the old head's records in [cut, old end). A file whose
   * offsets are unknown drops every file and moves every cut to the end of time.
   */
  private static boolean[] droppedFiles(List<HeadFile> files, Map<Integer, Long> cut) {
    boolean[] dropped = new boolean[files.size()];
    for (HeadFile f : files) {
      if (f.offsets() == null) {
        cut.replaceAll((p, c) -> Long.MAX_VALUE);
        Arrays.fill(dropped, true);
        return dropped;
      }
    }
    for (boolean moved = true; moved; ) {
      moved = false;
      for (int i = 0; i < files.size(); i++) {
        if (!dropped[i] && below(files.get(i), cut) && !trimmable(files.get(i), cut)) {
          dropped[i] = true;
          moved = true;
          files.get(i).offsets().forEach((p, span) -> cut.merge(p, span.last() + 1, Math::max));
        }
      }
    }
    return dropped;
  }

  /** Whether the file holds one partition and some of it at or past that partition's cut. */
  private static boolean trimmable(HeadFile file, Map<Integer, Long> cut) {
    if (file.offsets().size() != 1) {
      return false;
    }
    Map.Entry<Integer, Span> e = file.offsets().entrySet().iterator().next();
    Long c = cut.get(e.getKey());
    return c != null && e.getValue().last() >= c;
  }

  private static boolean below(HeadFile file, Map<Integer, Long> cut) {
    for (Map.Entry<Integer, Span> e : file.offsets().entrySet()) {
      Long c = cut.get(e.getKey());
      if (c == null || e.getValue().first() < c) {
        return true;
      }
    }
    return false;
  }
}
