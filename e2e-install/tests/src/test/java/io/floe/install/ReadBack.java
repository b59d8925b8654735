package io.floe.install;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What a reader (a consumer, or the rows of a table) saw of a partition, checked against the {@link
 * AckLedger}: every acked record exactly once at the offset its ack named, a record whose send
 * failed at most once, nothing else, every value intact and no offset missing.
 */
final class ReadBack {
  /** One record read back: its offset and {@link AckLedger#seen}. */
  record Seen(long offset, long seen) {}

  private static final int EXAMPLES = 5;

  long records;
  long lost;
  long duplicates;
  long misplaced;
  long corrupted;
  long gaps;
  long unackedPresent;
  final List<String> examples = new ArrayList<>();

  boolean clean() {
    return lost == 0 && duplicates == 0 && misplaced == 0 && corrupted == 0 && gaps == 0;
  }

  void add(ReadBack other) {
    records += other.records;
    lost += other.lost;
    duplicates += other.duplicates;
    misplaced += other.misplaced;
    corrupted += other.corrupted;
    gaps += other.gaps;
    unackedPresent += other.unackedPresent;
    other.examples.stream().limit(Math.max(0, EXAMPLES - examples.size())).forEach(examples::add);
  }

  /**
   * Checks what was read of {@code tp}'s offsets {@code [0, end)}. {@code complete}: the reader saw
   * the whole log, so an acked offset at or past {@code end} is lost too.
   */
  static ReadBack check(
      AckLedger ledger, TopicPartition tp, List<Seen> seen, long end, boolean complete) {
    ReadBack r = new ReadBack();
    NavigableMap<Long, Integer> acked = ledger.acked(tp);
    Set<Integer> failed = ledger.failed(tp);
    List<Seen> sorted = new ArrayList<>(seen);
    sorted.sort(Comparator.comparingLong(Seen::offset));
    Map<Integer, Integer> occurrences = new HashMap<>();
    Set<Long> matched = new HashSet<>();
    BitSet present = new BitSet();
    for (Seen s : sorted) {
      r.records++;
      if (s.offset() < end) {
        present.set((int) s.offset());
      }
      int n = AckLedger.number(s.seen());
      boolean first = occurrences.merge(n, 1, Integer::sum) == 1;
      if (n >= 0
          && AckLedger.valueDigest(s.seen())
              != AckLedger.digest(ByteBuffer.wrap(AckLedger.value(tp, n)))) {
        r.corrupted++;
        r.example(tp + " offset " + s.offset() + ": the value of record " + n + " differs");
      }
      Integer ackedN = acked.get(s.offset());
      if (n >= 0 && ackedN != null && ackedN == n) {
        matched.add(s.offset());
      } else if (first && n >= 0 && failed.contains(n)) {
        r.unackedPresent++;
      } else if (first) {
        r.misplaced++;
        r.example(tp + " offset " + s.offset() + ": record " + n + ", acked there: " + ackedN);
      }
    }
    for (int count : occurrences.values()) {
      r.duplicates += count - 1;
    }
    if (r.duplicates > 0) {
      occurrences.entrySet().stream()
          .filter(e -> e.getValue() > 1)
          .limit(EXAMPLES)
          .forEach(e -> r.example(tp + ": record " + e.getKey() + " read " + e.getValue() + "x"));
    }
    r.gaps = end - present.cardinality();
    if (r.gaps > 0) {
      r.example(tp + ": first offset missing " + present.nextClearBit(0) + " (of 0.." + end + ")");
    }
    for (Map.Entry<Long, Integer> a : acked.entrySet()) {
      if ((a.getKey() < end || complete) && !matched.contains(a.getKey())) {
        r.lost++;
        r.example(tp + ": acked record " + a.getValue() + " at offset " + a.getKey() + " lost");
      }
    }
    return r;
  }

  private void example(String what) {
    if (examples.size() < EXAMPLES) {
      examples.add(what);
    }
  }

  @Override
  public String toString() {
    return records
        + " records read: "
        + lost
        + " lost, "
        + duplicates
        + " duplicated, "
        + misplaced
        + " misplaced, "
        + corrupted
        + " corrupted, "
        + gaps
        + " offsets missing, "
        + unackedPresent
        + " records of failed sends present (allowed once)"
        + (examples.isEmpty() ? "" : "; e.g. " + examples);
  }
}
