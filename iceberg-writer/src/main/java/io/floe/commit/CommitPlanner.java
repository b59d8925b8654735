package io.floe.commit;

import io.floe.copy.AbortedTransaction;
import io.floe.copy.RowRange;
import io.floe.copy.RowRuns;
import io.floe.copy.WrittenSegment;
import io.floe.format.OffsetRange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;

/**
 * Plans the commit of a written segment against the table's committed files: which rows of other
 * copies of its offsets it hides, and which rows of earlier files it hides because its transaction
 * index aborts them. Reads the table, writes nothing.
 */
final class CommitPlanner {
  private final CommittedFiles files;

  CommitPlanner(CommittedFiles files) {
    this.files = files;
  }

  /**
   * The plan for {@code segment}. {@code aborted} is the segment's transaction index: entries whose
   * first offset lies before the segment hide rows in the earlier files that hold them.
   *
   * <p>Every committed file holding offsets of the segment is another copy of them: an earlier
   * attempt of this segment (Kafka retries a copy under a new segment id), another replica's
   * segment rolled at other offsets (every leader change produces one), or a demoted leader's copy
   * that committed late. Its rows inside the segment are hidden, never its file removed, so the
   * table keeps each offset once, from the copy made last, and the file stays for as long as Kafka
   * serves its own segment from it; deleting that segment (or this one) sorts it out. Only rows of
   * the segment's partition are hidden: a file whose metadata does not tell its partition (an
   * engine's, across partitions) is read row by row.
   */
  CommitPlan plan(WrittenSegment segment, List<AbortedTransaction> aborted) {
    List<RowRange> overlappedRows = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    OffsetRange offsets = new OffsetRange(segment.baseOffset(), segment.lastOffset());
    if (!offsets.isEmpty()) {
      for (DataFile file : files.inRange(segment.partition(), offsets.first(), offsets.last())) {
        if (!seen.add(file.location())) {
          continue;
        }
        OffsetRange held = files.boundsOf(file);
        Integer partition = files.partitionOf(file);
        if (held != null
            && offsets.contains(held)
            && partition != null
            && partition == segment.partition()) {
          overlappedRows.add(
              new RowRange(file.location(), file.partition(), 0, file.recordCount()));
        } else {
          Runs runs =
              new Runs(
                  file,
                  (rowPartition, offset, producerId) ->
                      rowPartition == segment.partition() && offsets.contains(offset),
                  overlappedRows);
          files.readRows(file, runs);
          runs.finish();
        }
      }
    }
    return new CommitPlan(earlierAbortedRows(segment, aborted), overlappedRows);
  }

  /** Rows before the segment of transactions it aborts. */
  private List<RowRange> earlierAbortedRows(
      WrittenSegment segment, List<AbortedTransaction> aborted) {
    List<RowRange> ranges = new ArrayList<>();
    for (AbortedTransaction txn : aborted) {
      if (txn.firstOffset() >= segment.baseOffset()) {
        continue;
      }
      long to = Math.min(txn.lastOffset(), segment.baseOffset() - 1);
      for (DataFile file : files.inRange(segment.partition(), txn.firstOffset(), to)) {
        Runs runs =
            new Runs(
                file,
                (rowPartition, offset, producerId) ->
                    rowPartition == segment.partition()
                        && offset >= txn.firstOffset()
                        && offset <= to
                        && producerId == txn.producerId(),
                ranges);
        files.readRows(file, runs);
        runs.finish();
      }
    }
    return ranges;
  }

  /** Whether a row (its Kafka partition, offset and producer id) is to be hidden. */
  @FunctionalInterface
  private interface RowFilter {
    boolean test(int partition, long offset, long producerId);
  }

  /** Collects the runs of consecutive rows of one file that a filter selects. */
  private static final class Runs implements CommittedFiles.RowVisitor {
    private final RowFilter filter;
    private final RowRuns runs;

    Runs(DataFile file, RowFilter filter, List<RowRange> out) {
      this.filter = filter;
      this.runs = new RowRuns(file, out);
    }

    @Override
    public void row(int partition, long offset, long producerId) {
      runs.next(filter.test(partition, offset, producerId));
    }

    void finish() {
      runs.finish();
    }
  }
}
