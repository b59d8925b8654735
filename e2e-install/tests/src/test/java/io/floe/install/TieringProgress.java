package io.floe.install;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Since when each partition's tiering last moved, from samples of log and tiered ends taken in
 * order: what the kill loop waits on and the run's stall check judges, so both mean the same.
 */
final class TieringProgress {
  /** A partition's tiered end, and the sample in which it reached it. */
  record Mark(long tiered, long atMillis) {}

  private final Map<TopicPartition, Mark> marks = new HashMap<>();
  private KillLoop.Ends latest;

  /** Takes the next sample. */
  void sample(KillLoop.Ends ends) {
    latest = ends;
    ends.tiered()
        .forEach(
            (tp, tiered) -> {
              Mark mark = marks.get(tp);
              if (mark == null || tiered > mark.tiered()) {
                marks.put(tp, new Mark(tiered, ends.atMillis()));
              }
            });
  }

  /**
   * How long, at the latest sample, {@code tp} has tiered nothing while its log held records not
   * tiered yet; 0 when none wait.
   */
  long idleMillis(TopicPartition tp) {
    Mark mark = marks.get(tp);
    if (latest.logEnd().get(tp) - 1 <= mark.tiered()) {
      return 0;
    }
    return latest.atMillis() - mark.atMillis();
  }

  /** {@code tp}'s tiered end and when tiering reached it. */
  Mark mark(TopicPartition tp) {
    return marks.get(tp);
  }
}
