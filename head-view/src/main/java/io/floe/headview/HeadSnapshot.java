package io.floe.headview;

import io.floe.headview.HeadWriter.HeadFile;
import io.floe.layout.CallerRuns;
import java.util.List;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;

/**
 * The one snapshot a load adds to a head's view: the files carried over from an earlier head (with
 * their delete files) and the files just written. A fast append, or a row delta when there are
 * delete files. Its manifests are read and written in the load's thread (see {@link CallerRuns}):
 * with Iceberg's worker pool, each of the two or three steps that use it waited out a 10 ms poll,
 * 20 ms of a warm load and 40-50 ms of a load after a tier commit.
 */
final class HeadSnapshot {
  private HeadSnapshot() {}

  /** Commits the snapshot, with the head summary naming {@code offsets}. */
  static void commit(Table view, List<HeadFile> carried, List<HeadFile> written, String offsets) {
    update(view, carried, written, offsets).commit();
  }

  private static SnapshotUpdate<?> update(
      Table view, List<HeadFile> carried, List<HeadFile> written, String offsets) {
    if (carried.stream().allMatch(f -> f.deletes().isEmpty())) {
      AppendFiles append = CallerRuns.manifestsInCallingThread(view.newFastAppend());
      carried.forEach(f -> append.appendFile(f.file()));
      written.forEach(f -> append.appendFile(f.file()));
      return append.set(HeadView.SUMMARY_HEAD, "true").set(HeadView.SUMMARY_HEAD_OFFSETS, offsets);
    }
    RowDelta delta = CallerRuns.manifestsInCallingThread(view.newRowDelta());
    for (HeadFile f : carried) {
      delta.addRows(f.file());
      f.deletes().forEach(delta::addDeletes);
    }
    written.forEach(f -> delta.addRows(f.file()));
    return delta.set(HeadView.SUMMARY_HEAD, "true").set(HeadView.SUMMARY_HEAD_OFFSETS, offsets);
  }
}
