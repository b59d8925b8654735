package io.floe.commit;

import io.floe.layout.SegmentSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Decides which members of a commit group must plan again before the group's one snapshot can be
 * committed on top of the table's current snapshot. Each member planned against the snapshot it
 * read ({@link GroupCommit.Member#base}); what was committed since then conflicts when Iceberg's
 * validation of that member alone would refuse it, or may: another copy into its partition (files
 * added there), a segment delete in its partition when its position deletes point at files (they
 * may be gone), any snapshot of another writer (an engine's compaction or delete), and a base no
 * longer in the table's history (expired). A second member of one partition also plans again: it
 * did not see the first one's rows. Reads the table's metadata, writes nothing.
 */
final class MemberConflicts {
  private MemberConflicts() {}

  /** The members that must plan again, each with the reason. */
  static Map<GroupCommit.Member, String> of(
      Table table, Snapshot head, List<GroupCommit.Member> members) {
    Map<GroupCommit.Member, String> refused = new IdentityHashMap<>();
    Set<Integer> partitions = new HashSet<>();
    Set<Long> bases = new HashSet<>();
    boolean wholeHistory = false;
    for (GroupCommit.Member m : members) {
      int partition = m.segment().partition();
      if (!partitions.add(partition)) {
        refused.put(m, "another copy of partition " + partition + " commits in the same group");
      } else if (m.base() == null) {
        wholeHistory = true;
      } else {
        bases.add(m.base());
      }
    }
    List<Snapshot> newer = new ArrayList<>();
    Map<Long, Integer> depth = new HashMap<>();
    if (head != null) {
      for (Snapshot s : SnapshotUtil.ancestorsOf(head.snapshotId(), table::snapshot)) {
        if (bases.remove(s.snapshotId())) {
          depth.put(s.snapshotId(), newer.size());
          if (bases.isEmpty() && !wholeHistory) {
            break;
          }
        }
        newer.add(s);
      }
    }
    for (GroupCommit.Member m : members) {
      if (refused.containsKey(m)) {
        continue;
      }
      Integer limit = m.base() == null ? Integer.valueOf(newer.size()) : depth.get(m.base());
      if (limit == null) {
        refused.put(
            m, "snapshot " + m.base() + " it planned against is no longer in the table's history");
        continue;
      }
      for (int i = 0; i < limit; i++) {
        String reason = conflict(newer.get(i), m);
        if (reason != null) {
          refused.put(m, reason);
          break;
        }
      }
    }
    return refused;
  }

  private static String conflict(Snapshot s, GroupCommit.Member m) {
    int partition = m.segment().partition();
    List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(s.summary());
    if (!segments.isEmpty()) {
      for (SegmentSummary.Segment other : segments) {
        if (other.partition() == partition) {
          return "snapshot "
              + s.snapshotId()
              + " committed segment "
              + other.segmentId()
              + " of partition "
              + partition
              + " since it planned";
        }
      }
      return null;
    }
    Integer deleted = SegmentSummary.deletedPartitionOf(s.summary());
    if (deleted != null) {
      return deleted == partition && !m.referencedFiles().isEmpty()
          ? "snapshot "
              + s.snapshotId()
              + " deleted a segment of partition "
              + partition
              + " since it planned"
          : null;
    }
    return "snapshot "
        + s.snapshotId()
        + " ("
        + s.operation()
        + ") of another writer since it planned";
  }
}
