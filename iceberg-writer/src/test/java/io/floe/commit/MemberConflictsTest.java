package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.layout.SegmentSummary;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemberConflictsTest {
  @TempDir Path dir;

  private static GroupCommit.Member member(
      String name, int partition, Long base, Set<String> referenced) {
    SegmentSummary.Segment segment = new SegmentSummary.Segment("id", partition, 0, 9, name, 0, 0);
    return new GroupCommit.Member(segment, base, referenced, delta -> {});
  }

  /** Commits one segment of {@code partition} the way a copy does; returns the new snapshot id. */
  private static long copy(Table table, String name, int partition) {
    RowDelta delta =
        table.newRowDelta().addRows(MetadataOnlyFiles.dataFile(table, name, partition));
    SegmentSummary.write(
        List.of(new SegmentSummary.Segment("id", partition, 0, 9, name, 0, 0)), delta::set);
    delta.commit();
    return table.currentSnapshot().snapshotId();
  }

  @Test
  void aMemberConflictsWithWhatWasCommittedIntoItsPartitionSinceItsBaseOnly() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("conflicts", "id");
      long base = copy(table, "s0", 0);
      copy(table, "s1", 1);
      // A snapshot listing several segments touches each of their partitions.
      RowDelta both =
          table
              .newRowDelta()
              .addRows(MetadataOnlyFiles.dataFile(table, "s2", 2))
              .addRows(MetadataOnlyFiles.dataFile(table, "s3", 3));
      SegmentSummary.write(
          List.of(
              new SegmentSummary.Segment("id", 2, 0, 9, "s2", 0, 0),
              new SegmentSummary.Segment("id", 3, 0, 9, "s3", 0, 0)),
          both::set);
      both.commit();
      long afterGroup = table.currentSnapshot().snapshotId();
      GroupCommit.Member staleOne = member("a", 1, base, Set.of());
      GroupCommit.Member staleThree = member("b", 3, base, Set.of());
      GroupCommit.Member otherPartition = member("c", 4, base, Set.of());
      GroupCommit.Member fresh = member("d", 2, afterGroup, Set.of());
      GroupCommit.Member emptyTable = member("e", 0, null, Set.of());
      GroupCommit.Member expired = member("f", 5, 42L, Set.of());
      GroupCommit.Member secondOfTwo = member("g", 4, afterGroup, Set.of());

      Map<GroupCommit.Member, String> refused =
          MemberConflicts.of(
              table,
              table.currentSnapshot(),
              List.of(
                  staleOne, staleThree, otherPartition, fresh, emptyTable, expired, secondOfTwo));

      assertThat(refused).containsOnlyKeys(staleOne, staleThree, emptyTable, expired, secondOfTwo);
      assertThat(refused.get(staleOne)).contains("segment s1 of partition 1");
      assertThat(refused.get(staleThree)).contains("segment s3 of partition 3");
      assertThat(refused.get(emptyTable)).contains("segment s0 of partition 0");
      assertThat(refused.get(expired)).contains("no longer in the table's history");
      assertThat(refused.get(secondOfTwo)).contains("same group");
    }
  }

  @Test
  void aSegmentDeleteConflictsOnlyWithMembersWhoseDeletesPointAtFilesAndAForeignSnapshotWithAll()
      throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("deletes", "id");
      long base = copy(table, "s0", 0);
      table
          .newRowDelta()
          .removeRows(MetadataOnlyFiles.dataFile(table, "s0", 0))
          .set(SegmentSummary.PARTITION, "0")
          .set(SegmentSummary.SEGMENT_ID, "s0")
          .set(SegmentSummary.OPERATION, SegmentSummary.DELETE_SEGMENT)
          .commit();
      long afterDelete = table.currentSnapshot().snapshotId();
      GroupCommit.Member plain = member("a", 0, base, Set.of());
      GroupCommit.Member pointing = member("b", 1, base, Set.of()); // another partition
      GroupCommit.Member hiding = member("c", 2, base, Set.of("x"));
      assertThat(
              MemberConflicts.of(table, table.currentSnapshot(), List.of(plain, pointing, hiding)))
          .isEmpty();
      GroupCommit.Member hidingInPartition = member("d", 0, base, Set.of("x"));
      assertThat(MemberConflicts.of(table, table.currentSnapshot(), List.of(hidingInPartition)))
          .containsOnlyKeys(hidingInPartition);

      table.newFastAppend().appendFile(MetadataOnlyFiles.dataFile(table, "engine", 7)).commit();
      GroupCommit.Member beforeEngine = member("e", 1, afterDelete, Set.of());
      GroupCommit.Member afterEngine =
          member("f", 2, table.currentSnapshot().snapshotId(), Set.of());
      Map<GroupCommit.Member, String> refused =
          MemberConflicts.of(table, table.currentSnapshot(), List.of(beforeEngine, afterEngine));
      assertThat(refused).containsOnlyKeys(beforeEngine);
      assertThat(refused.get(beforeEngine)).contains("(append) of another writer");

      // Segment keys that do not parse: whoever wrote them, another writer's snapshot.
      long beforeGarbled = table.currentSnapshot().snapshotId();
      table
          .newFastAppend()
          .appendFile(MetadataOnlyFiles.dataFile(table, "garbled", 8))
          .set(SegmentSummary.SEGMENTS, "8:0:x")
          .commit();
      GroupCommit.Member planned = member("g", 9, beforeGarbled, Set.of());
      assertThat(MemberConflicts.of(table, table.currentSnapshot(), List.of(planned)).get(planned))
          .contains("of another writer");
    }
  }
}
