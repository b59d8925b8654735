package io.floe.commit;

import io.floe.copy.RowRange;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What committing a segment changes in its table besides adding the segment's own files: the data
 * files of an earlier copy of the same offsets it replaces, the delete files that only referenced
 * those, the rows of earlier files it hides because they belong to transactions the segment aborts
 * ({@code abortedRows}), and the rows inside the segment of files it overlaps only in part ({@code
 * overlappedRows}: another replica's copy of some of the same offsets).
 */
record CommitPlan(
    List<DataFile> removedFiles,
    List<DeleteFile> removedDeletes,
    List<RowRange> abortedRows,
    List<RowRange> overlappedRows) {

  /** The plan against a table with no snapshot yet. */
  static final CommitPlan NONE = new CommitPlan(List.of(), List.of(), List.of(), List.of());

  CommitPlan {
    removedFiles = List.copyOf(removedFiles);
    removedDeletes = List.copyOf(removedDeletes);
    abortedRows = List.copyOf(abortedRows);
    overlappedRows = List.copyOf(overlappedRows);
  }

  /** The data files the plan's position deletes point at: they must still be live at commit. */
  Set<String> referencedFiles() {
    Set<String> out = new TreeSet<>();
    abortedRows.forEach(r -> out.add(r.location()));
    overlappedRows.forEach(r -> out.add(r.location()));
    return out;
  }

  /** How many distinct files the segment overlaps only in part. */
  int overlappedFiles() {
    return (int) overlappedRows.stream().map(RowRange::location).distinct().count();
  }
}
