package io.floe.commit;

import io.floe.commit.CommittedFiles.LiveFile;
import io.floe.copy.AbortedTransaction;
import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.copy.WrittenSegment;
import io.floe.format.OffsetRange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * Plans the commit of a written segment against the table's committed files: which files of an
 * earlier copy of the same offsets it replaces, which delete files go with them, which rows of
 * files it overlaps only in part it hides, and which rows of earlier files it hides because its
 * transaction index aborts them. Reads the table, writes nothing.
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
   * <p>A committed file that the segment covers whole is an earlier copy of the same offsets (a
   * retry under another segment id): it is replaced. A file the segment covers only in part is the
   * copy of another replica's segment, rolled at other offsets (every leader change produces one):
   * its rows inside the segment are hidden, so the table keeps each offset once, from the copy
   * Kafka made last; the file itself stays, since its own segment is still served from it.
   */
  CommitPlan plan(WrittenSegment segment, List<AbortedTransaction> aborted) {
    List<DataFile> removedFiles = new ArrayList<>();
    List<DeleteFile> removedDeletes = new ArrayList<>();
    List<RowRange> overlappedRows = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    OffsetRange offsets = new OffsetRange(segment.baseOffset(), segment.lastOffset());
    if (!offsets.isEmpty()) {
      for (LiveFile live : files.inRange(segment.partition(), offsets.first(), offsets.last())) {
        DataFile file = live.file();
        if (!seen.add(file.location())) {
          continue;
        }
        OffsetRange held = files.boundsOf(file);
        if (held != null && offsets.contains(held)) {
          removedFiles.add(file);
          for (DeleteFile deletes : live.deletes()) {
            if (PositionDeletes.referencesOnly(deletes, file.location())) {
              removedDeletes.add(deletes);
            }
          }
        } else {
          Runs runs =
              new Runs(file, (offset, producerId) -> offsets.contains(offset), overlappedRows);
          files.readRows(file, runs);
          runs.finish();
        }
      }
    }
    Set<String> replaced = new HashSet<>();
    removedFiles.forEach(f -> replaced.add(f.location()));
    return new CommitPlan(
        removedFiles,
        removedDeletes,
        earlierAbortedRows(segment, aborted, replaced),
        overlappedRows);
  }

  /** Rows before the segment, in files it does not replace, of transactions it aborts. */
  private List<RowRange> earlierAbortedRows(
      WrittenSegment segment, List<AbortedTransaction> aborted, Set<String> replaced) {
    List<RowRange> ranges = new ArrayList<>();
    for (AbortedTransaction txn : aborted) {
      if (txn.firstOffset() >= segment.baseOffset()) {
        continue;
      }
      long to = Math.min(txn.lastOffset(), segment.baseOffset() - 1);
      for (LiveFile live : files.inRange(segment.partition(), txn.firstOffset(), to)) {
        if (!replaced.contains(live.file().location())) {
          Runs runs =
              new Runs(
                  live.file(),
                  (offset, producerId) ->
                      offset >= txn.firstOffset() && offset <= to && producerId == txn.producerId(),
                  ranges);
          files.readRows(live.file(), runs);
          runs.finish();
        }
      }
    }
    return ranges;
  }

  /** Whether a row (its offset and producer id) is to be hidden. */
  @FunctionalInterface
  private interface RowFilter {
    boolean test(long offset, long producerId);
  }

  /** Collects the runs of consecutive rows of one file that a filter selects. */
  private static final class Runs implements CommittedFiles.RowVisitor {
    private final DataFile file;
    private final RowFilter filter;
    private final List<RowRange> out;
    private long position;
    private long runStart = -1;

    Runs(DataFile file, RowFilter filter, List<RowRange> out) {
      this.file = file;
      this.filter = filter;
      this.out = out;
    }

    @Override
    public void row(long offset, long producerId) {
      boolean hit = filter.test(offset, producerId);
      if (hit && runStart < 0) {
        runStart = position;
      } else if (!hit && runStart >= 0) {
        out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
        runStart = -1;
      }
      position++;
    }

    void finish() {
      if (runStart >= 0) {
        out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
      }
    }
  }
}
