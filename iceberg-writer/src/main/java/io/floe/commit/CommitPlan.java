package io.floe.commit;

import io.floe.copy.RowRange;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What committing a segment changes in its table besides adding the segment's own files: the rows
 * of earlier files it hides because they belong to transactions the segment aborts ({@code
 * abortedRows}), and the rows inside the segment of other copies of its offsets ({@code
 * overlappedRows}: an earlier attempt, another replica's segment, a late copy of a demoted leader).
 */
record CommitPlan(List<RowRange> abortedRows, List<RowRange> overlappedRows) {

  /** The plan against a table with no snapshot yet. */
  static final CommitPlan NONE = new CommitPlan(List.of(), List.of());

  CommitPlan {
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

  /** How many distinct files of other copies the segment hides rows of. */
  int overlappedFiles() {
    return (int) overlappedRows.stream().map(RowRange::location).distinct().count();
  }
}
