package io.floe.commit;

import io.floe.copy.PositionDeletes;
import io.floe.format.OffsetRange;
import io.floe.layout.CallerRuns;
import io.floe.layout.OffsetBounds;
import io.floe.layout.SegmentSummary;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Takes a deleted segment's data files out of the table's current snapshot (one commit, with the
 * delete files that reference only them, and, for a copy Kafka never finished, the delete files
 * with which the segment hid the rows of other copies of its offsets, so those rows are visible
 * again), or tells which of its files are still live.
 */
public final class SegmentRemoval {
  /** The segment being deleted: its table partition, id and offsets. */
  public record Target(String topicId, int partition, String segmentId, OffsetRange range) {}

  private SegmentRemoval() {}

  /**
   * Removes those of {@code files} that the current snapshot holds for the segment's partition in
   * its range, and returns their locations. With {@code restoreHidden}, the rows the segment hid in
   * other copies come back; without, they stay hidden (Kafka deleted those offsets with the
   * segment) until their own files leave the table. The removed files stay readable by older
   * snapshots until snapshots expire; they are not deleted here.
   */
  public static Set<String> remove(
      Table table, Target segment, Set<String> files, boolean restoreHidden) {
    table.refresh();
    String segmentId = segment.segmentId();
    RowDelta delta = table.newRowDelta();
    Set<String> removed = new HashSet<>();
    Set<String> removedDeletes = new HashSet<>();
    Predicate<DeleteFile> overlapDeletes = OverlapDeletes.writtenFor(segmentId);
    for (FileScanTask task : scan(table, segment.partition(), segment.range())) {
      String location = task.file().location();
      boolean own = files.contains(location);
      if (own && removed.add(location)) {
        delta.removeRows(task.file());
      }
      for (DeleteFile d : task.deletes()) {
        boolean goesWithFile = own && PositionDeletes.referencesOnly(d, location);
        if ((goesWithFile || restoreHidden && overlapDeletes.test(d))
            && removedDeletes.add(d.location())) {
          delta.removeDeletes(d);
        }
      }
    }
    if (!removed.isEmpty() || !removedDeletes.isEmpty()) {
      CallerRuns.manifestsInCallingThread(delta)
          .set(SegmentSummary.TOPIC_ID, segment.topicId())
          .set(SegmentSummary.PARTITION, Integer.toString(segment.partition()))
          .set(SegmentSummary.SEGMENT_ID, segmentId)
          .set(SegmentSummary.OPERATION, SegmentSummary.DELETE_SEGMENT)
          .commit();
    }
    return removed;
  }

  /** Those of {@code files} that the current snapshot holds for {@code partition} in range. */
  public static Set<String> live(Table table, int partition, Set<String> files, OffsetRange range) {
    // A cached instance may still point at a snapshot whose manifest list an expiry deleted.
    table.refresh();
    Set<String> live = new HashSet<>();
    for (FileScanTask task : scan(table, partition, range)) {
      if (files.contains(task.file().location())) {
        live.add(task.file().location());
      }
    }
    return live;
  }

  private static List<FileScanTask> scan(Table table, int partition, OffsetRange range) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return List.of();
    }
    return OffsetBounds.filesInRange(table, snapshot, partition, range);
  }
}
