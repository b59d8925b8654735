package io.floe.commit;

import io.floe.copy.RowRange;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What committing a segment changes in its table besides adding the segment's own files: the data
 * files of an earlier copy of the same offsets it replaces, the delete files that only referenced
 * those, and the rows of earlier files it hides because they belong to transactions the segment
 * aborts.
 */
record CommitPlan(
    List<DataFile> removedFiles, List<DeleteFile> removedDeletes, List<RowRange> hiddenRows) {

  /** The plan against a table with no snapshot yet. */
  static final CommitPlan NONE = new CommitPlan(List.of(), List.of(), List.of());

  CommitPlan {
    removedFiles = List.copyOf(removedFiles);
    removedDeletes = List.copyOf(removedDeletes);
    hiddenRows = List.copyOf(hiddenRows);
  }
}
