package io.floe.headview;

import io.floe.layout.OffsetBounds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * One table's committed boundaries: per Kafka partition, the offset after the last one its current
 * snapshot holds, cached per snapshot id. A snapshot that descends from the cached one through
 * snapshots that only added files (the plugin's commits) is read from those snapshots only. Not
 * thread-safe: used under its table's lock.
 */
final class SnapshotBoundaries {
  private long snapshotId = Long.MIN_VALUE;
  private Map<Integer, Long> ends = Map.of();

  /** Per partition, the offset after the last one the current snapshot holds (absent: none). */
  Map<Integer, Long> of(Table table, TableMetadata base) {
    Snapshot current = base.currentSnapshot();
    long currentId = current == null ? -1 : current.snapshotId();
    if (currentId == snapshotId) {
      return ends;
    }
    Map<Integer, Long> next = current == null ? null : since(table, base, current);
    if (next == null) {
      next = new HashMap<>();
      if (current != null) {
        for (Snapshot s : SnapshotUtil.ancestorsOf(currentId, base::snapshot)) {
          OffsetBounds.mergeSummaryEnd(s, next);
        }
        OffsetBounds.of(table, base).mergeFileEnds(currentId, next);
      }
    }
    snapshotId = currentId;
    ends = Map.copyOf(next);
    return ends;
  }

  /**
   * The boundaries of {@code current} from the cached ones, when it descends from the cached
   * snapshot through snapshots that only added files: the cached maxima plus those snapshots'
   * summaries and added files, instead of planning a scan of the whole table. Null when that does
   * not apply.
   */
  private Map<Integer, Long> since(Table table, TableMetadata base, Snapshot current) {
    if (snapshotId < 0) {
      return null;
    }
    List<Snapshot> newer = new ArrayList<>();
    boolean found = false;
    for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), base::snapshot)) {
      if (s.snapshotId() == snapshotId) {
        found = true;
        break;
      }
      String deleted = s.summary().get(SnapshotSummary.DELETED_FILES_PROP);
      if (deleted != null && !deleted.equals("0")) {
        return null;
      }
      newer.add(s);
    }
    if (!found) {
      return null;
    }
    Map<Integer, Long> next = new HashMap<>(ends);
    for (Snapshot s : newer) {
      // A segment commit's files hold only its segments' offsets, whose ends its summary records:
      // only the files of other snapshots (another writer's appends) are read.
      if (!OffsetBounds.mergeSummaryEnd(s, next)) {
        OffsetBounds.of(table, base).mergeAddedFileEnds(s, next);
      }
    }
    return next;
  }
}
