package io.floe.commit;

import io.floe.commit.CommittedFiles.LiveFile;
import io.floe.copy.AbortedTransaction;
import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.copy.SegmentFormatException;
import io.floe.copy.WrittenSegment;
import io.floe.format.OffsetRange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * Plans the commit of a written segment against the table's committed files: which files of an
 * earlier copy of the same offsets it replaces (refusing a file it would cover only in part), which
 * delete files go with them, and which rows of earlier files it hides because its transaction index
 * aborts them. Reads the table, writes nothing.
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
   * @throws SegmentFormatException if a committed file holds offsets both inside and outside the
   *     segment
   */
  CommitPlan plan(WrittenSegment segment, List<AbortedTransaction> aborted) {
    List<DataFile> removedFiles = new ArrayList<>();
    List<DeleteFile> removedDeletes = new ArrayList<>();
    Set<String> replaced = new HashSet<>();
    if (segment.lastOffset() >= segment.baseOffset()) {
      OffsetRange offsets = new OffsetRange(segment.baseOffset(), segment.lastOffset());
      for (LiveFile live : files.inRange(segment.partition(), offsets.first(), offsets.last())) {
        DataFile file = live.file();
        OffsetRange held = Objects.requireNonNullElse(files.boundsOf(file), OffsetRange.ANY);
        if (!offsets.contains(held)) {
          throw new SegmentFormatException(
              "Partition "
                  + segment.partition()
                  + " offsets "
                  + offsets.first()
                  + ".."
                  + offsets.last()
                  + " overlap file "
                  + file.location()
                  + " (offsets "
                  + held.first()
                  + ".."
                  + held.last()
                  + ") only in part; refusing to replace it");
        }
        if (replaced.add(file.location())) {
          removedFiles.add(file);
          for (DeleteFile deletes : live.deletes()) {
            if (PositionDeletes.referencesOnly(deletes, file.location())) {
              removedDeletes.add(deletes);
            }
          }
        }
      }
    }
    return new CommitPlan(
        removedFiles, removedDeletes, earlierAbortedRows(segment, aborted, replaced));
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
          Runs runs = new Runs(live.file(), txn, to, ranges);
          files.readRows(live.file(), runs);
          runs.finish();
        }
      }
    }
    return ranges;
  }

  /** Collects the runs of consecutive rows of one file that belong to one aborted transaction. */
  private static final class Runs implements CommittedFiles.RowVisitor {
    private final DataFile file;
    private final AbortedTransaction txn;
    private final long to;
    private final List<RowRange> out;
    private long position;
    private long runStart = -1;

    Runs(DataFile file, AbortedTransaction txn, long to, List<RowRange> out) {
      this.file = file;
      this.txn = txn;
      this.to = to;
      this.out = out;
    }

    @Override
    public void row(long offset, long producerId) {
      boolean hit = offset >= txn.firstOffset() && offset <= to && producerId == txn.producerId();
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
