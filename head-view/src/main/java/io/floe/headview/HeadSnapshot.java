package io.floe.headview;

import io.floe.copy.Leftovers;
import io.floe.headview.HeadWriter.HeadFile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;

/**
 * The one snapshot a load adds to a head's view: the files carried over from an earlier head (with
 * their delete files) and the files just written. A fast append, or a row delta when there are
 * delete files. If it fails, what the load wrote is deleted.
 */
final class HeadSnapshot {
  private HeadSnapshot() {}

  /**
   * Commits the snapshot with the head summary; {@code trimmedBefore} are the carried files as the
   * earlier head had them, to tell the delete files this load wrote.
   */
  static void commit(
      Table view,
      List<HeadFile> carried,
      List<HeadFile> trimmedBefore,
      List<HeadFile> written,
      String offsets) {
    try {
      update(view, carried, written, offsets).commit();
    } catch (RuntimeException e) {
      Leftovers.delete(view.io(), writtenBy(carried, trimmedBefore, written));
      throw e;
    }
  }

  private static SnapshotUpdate<?> update(
      Table view, List<HeadFile> carried, List<HeadFile> written, String offsets) {
    if (carried.stream().allMatch(f -> f.deletes().isEmpty())) {
      AppendFiles append = view.newFastAppend();
      carried.forEach(f -> append.appendFile(f.file()));
      written.forEach(f -> append.appendFile(f.file()));
      return append.set(HeadView.SUMMARY_HEAD, "true").set(HeadView.SUMMARY_HEAD_OFFSETS, offsets);
    }
    RowDelta delta = view.newRowDelta();
    for (HeadFile f : carried) {
      delta.addRows(f.file());
      f.deletes().forEach(delta::addDeletes);
    }
    written.forEach(f -> delta.addRows(f.file()));
    return delta.set(HeadView.SUMMARY_HEAD, "true").set(HeadView.SUMMARY_HEAD_OFFSETS, offsets);
  }

  /**
   * The files of {@code written} and the delete files of {@code carried} not in the earlier head.
   */
  static List<String> writtenBy(
      List<HeadFile> carried, List<HeadFile> before, List<HeadFile> written) {
    Set<String> old = new HashSet<>();
    before.forEach(f -> f.deletes().forEach(d -> old.add(d.location())));
    List<String> out = new ArrayList<>();
    written.forEach(f -> out.addAll(f.locations()));
    for (HeadFile f : carried) {
      for (DeleteFile d : f.deletes()) {
        if (!old.contains(d.location())) {
          out.add(d.location());
        }
      }
    }
    return out;
  }
}
