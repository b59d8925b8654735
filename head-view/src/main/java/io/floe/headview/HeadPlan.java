package io.floe.headview;

import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one loadTable does with a table's head, as {@link HeadPlanner} decided it.
 *
 * @param action reuse the cached head as is, extend it, or rebuild it on the committed snapshot
 * @param from per partition, where the head starts (extend: the cached head's start, unchanged)
 * @param appendFrom per partition, where the offsets the new head snapshot names start
 * @param to per partition, where the head ends after the plan (exclusive: the last stable offset)
 * @param kept rebuild: files of the cached head carried over as they are (wholly past the boundary)
 * @param trimmed rebuild: files of one Kafka partition straddling the boundary, carried over with
 *     their rows below it hidden (position deletes)
 * @param dropped rebuild: files of the cached head not carried over, wholly below the boundary or
 *     holding several partitions and straddling it (their records at or past the boundary are read
 *     again)
 * @param reads the offsets to read from Kafka and write as new head files
 */
record HeadPlan(
    Action action,
    Map<Integer, Long> from,
    Map<Integer, Long> appendFrom,
    Map<Integer, Long> to,
    List<HeadFile> kept,
    List<Trim> trimmed,
    List<HeadFile> dropped,
    List<Ranges> reads) {

  /** A file carried over with its rows of offsets below {@code cut} hidden. */
  record Trim(HeadFile file, int partition, long cut) {}

  /** The three ways a load can go. */
  enum Action {
    /** Same committed metadata, same end offsets: the cached head is the answer. */
    REUSE,
    /** Same committed metadata, more records: one more head snapshot with just those. */
    EXTEND,
    /** The committed table moved on, or the cached head cannot be extended: a fresh view. */
    REBUILD
  }

  HeadPlan {
    from = Map.copyOf(from);
    appendFrom = Map.copyOf(appendFrom);
    to = Map.copyOf(to);
    kept = List.copyOf(kept);
    trimmed = List.copyOf(trimmed);
    dropped = List.copyOf(dropped);
    reads = List.copyOf(reads);
  }

  /**
   * The head snapshot's {@code floe.head-offsets} summary: {@code <partition>:<first>-<last>} for
   * each partition with offsets in [appendFrom, to), by partition.
   */
  String offsetsSummary() {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(to)
        .forEach(
            (p, end) -> {
              long start = appendFrom.getOrDefault(p, end);
              if (end > start) {
                if (out.length() > 0) {
                  out.append(',');
                }
                out.append(p).append(':').append(start).append('-').append(end - 1);
              }
            });
    return out.toString();
  }
}
