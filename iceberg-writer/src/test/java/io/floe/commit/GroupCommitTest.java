package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.layout.SegmentSummary;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitTest {
  @TempDir Path dir;

  /**
   * A member adding one (metadata-only) data file to a partition, validating from the snapshot it
   * planned on.
   */
  private static GroupCommit.Member member(
      Table table, String name, int partition, Long base, CountDownLatch hold) {
    return member(table, name, partition, base, hold, new CountDownLatch(1));
  }

  private static GroupCommit.Member member(
      Table table,
      String name,
      int partition,
      Long base,
      CountDownLatch hold,
      CountDownLatch entered) {
    DataFile file = MetadataOnlyFiles.dataFile(table, name, partition);
    SegmentSummary.Segment segment = new SegmentSummary.Segment("id", partition, 0, 0, name, 0, 0);
    return new GroupCommit.Member(
        segment,
        base,
        Set.of(),
        delta -> {
          entered.countDown();
          if (hold != null) {
            try {
              hold.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          }
          delta.addRows(file);
        });
  }

  /** The segment ids the table's snapshots committed, oldest first. */
  private static List<String> committedSegments(Table table) {
    List<String> committed = new ArrayList<>();
    table
        .snapshots()
        .forEach(
            s -> SegmentSummary.segmentsOf(s.summary()).forEach(g -> committed.add(g.segmentId())));
    return committed;
  }

  @Test
  void waitingCommitsShareOneCatalogCommitAndAConflictingMemberFailsAlone() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("grouped", "id");
      GroupCommit groups = new GroupCommit();
      CountDownLatch hold = new CountDownLatch(1);
      // The first commit leads and is held inside its own staging while the others queue up behind
      // it.
      CountDownLatch leading = new CountDownLatch(1);
      CompletableFuture<Long> first =
          CompletableFuture.supplyAsync(
              () -> groups.commit(table, member(table, "first", 0, null, hold, leading)));
      assertThat(leading.await(1, TimeUnit.MINUTES)).isTrue();
      Long base = null;
      List<CompletableFuture<Long>> queued = new ArrayList<>();
      // Queued one at a time so that the queue order (p1-a before p1-b) is the order the test
      // asserts on.
      for (String name : List.of("p1-a", "p1-b", "p2")) {
        int partition = name.startsWith("p1") ? 1 : 2;
        Table own = f.tables.resolve("grouped", "id");
        int before = groups.waiting(table);
        queued.add(
            CompletableFuture.supplyAsync(
                () -> groups.commit(own, member(own, name, partition, base, null))));
        awaitWaiting(groups, table, before + 1);
      }
      assertThat(groups.waiting(table)).isEqualTo(3);
      int metadataBefore = metadataVersions(f.table("grouped", "id"));
      hold.countDown();

      assertThat(first.get(1, TimeUnit.MINUTES)).isPositive();
      long a = queued.get(0).get(1, TimeUnit.MINUTES);
      // p1-b adds a file to partition 1 as p1-a does, both planned on the same (empty) table:
      // refused alone.
      assertThatThrownBy(() -> queued.get(1).get(1, TimeUnit.MINUTES))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ValidationException.class);
      long p2 = queued.get(2).get(1, TimeUnit.MINUTES);

      Table after = f.table("grouped", "id");
      assertThat(committedSegments(after)).containsExactlyInAnyOrder("first", "p1-a", "p2");
      // "first" committed alone; p1-a and p2 together in one snapshot and one catalog commit (one
      // more metadata version, not two).
      assertThat(a).isEqualTo(p2);
      assertThat(after.snapshot(a).summary())
          .doesNotContainKey(SegmentSummary.SEGMENT_ID)
          .containsKey(SegmentSummary.SEGMENTS);
      assertThat(SegmentSummary.segmentsOf(after.snapshot(a).summary()))
          .extracting(SegmentSummary.Segment::segmentId, SegmentSummary.Segment::partition)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("p1-a", 1),
              org.assertj.core.groups.Tuple.tuple("p2", 2));
      assertThat(after.snapshots()).hasSize(2);
      assertThat(metadataVersions(after)).isEqualTo(metadataBefore + 2);
    }
  }

  @Test
  void aConcurrentCommitIntoAMembersPartitionLeavesOutThatMemberOnly() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("raced", "id");
      GroupCommit groups = new GroupCommit();
      long seed = groups.commit(table, member(table, "seed", 3, null, null));
      // "first" leads and holds while p1 and p2 queue behind it; they then commit as one group,
      // held while staging until another writer has committed into partition 1.
      CountDownLatch holdFirst = new CountDownLatch(1);
      CountDownLatch firstEntered = new CountDownLatch(1);
      CompletableFuture<Long> first =
          CompletableFuture.supplyAsync(
              () -> groups.commit(table, member(table, "first", 0, seed, holdFirst, firstEntered)));
      assertThat(firstEntered.await(1, TimeUnit.MINUTES)).isTrue();
      CountDownLatch holdGroup = new CountDownLatch(1);
      CountDownLatch groupEntered = new CountDownLatch(1);
      CompletableFuture<Long> p1 =
          CompletableFuture.supplyAsync(
              () -> groups.commit(table, member(table, "p1", 1, seed, holdGroup, groupEntered)));
      awaitWaiting(groups, table, 1);
      CompletableFuture<Long> p2 =
          CompletableFuture.supplyAsync(
              () -> groups.commit(table, member(table, "p2", 2, seed, null)));
      awaitWaiting(groups, table, 2);
      holdFirst.countDown();
      assertThat(first.get(1, TimeUnit.MINUTES)).isPositive();
      assertThat(groupEntered.await(1, TimeUnit.MINUTES)).isTrue();

      commitFromAnotherWriter(f, "raced", 1);
      holdGroup.countDown();

      assertThatThrownBy(() -> p1.get(1, TimeUnit.MINUTES))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(ValidationException.class)
          .hasMessageContaining("segment other of partition 1");
      long p2Snapshot = p2.get(1, TimeUnit.MINUTES);
      Table after = f.table("raced", "id");
      assertThat(committedSegments(after)).containsExactly("seed", "first", "other", "p2");
      assertThat(after.currentSnapshot().snapshotId()).isEqualTo(p2Snapshot);
    }
  }

  @Test
  void aWriterPausesBetweenItsCommitsOnlyWhileAnotherWriterCommitsIntoTheTable() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("paused", "id");
      GroupCommit groups = new GroupCommit();
      groups.commit(table, member(table, "a", 0, null, null));
      groups.commit(table, member(table, "b", 1, null, null));
      assertThat(groups.pauseNanos(table)).as("its own commits only").isZero();

      Table otherBroker = f.table("paused", "id");
      new GroupCommit().commit(otherBroker, member(otherBroker, "other", 2, null, null));
      groups.commit(table, member(table, "c", 3, null, null));
      long pause = groups.pauseNanos(table);
      assertThat(pause)
          .as("another writer committed in between")
          .isPositive()
          .isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(GroupCommit.MAX_PAUSE_MS));

      long started = System.nanoTime();
      long d = groups.commit(table, member(table, "d", 4, null, null));
      assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(pause);
      assertThat(f.table("paused", "id").snapshot(d).summary())
          .containsEntry(SegmentSummary.SEGMENT_ID, "d");
      assertThat(committedSegments(f.table("paused", "id")))
          .containsExactly("a", "b", "other", "c", "d");
    }
  }

  /** A table whose catalog reads and commits are counted, with one segment committed. */
  private record Seeded(Table table, CountingOperations ops, GroupCommit groups, long seed) {}

  private static Seeded seeded(TableFixture f, String name) {
    CountingOperations ops = CountingOperations.of(f.tables.resolve(name, "id"));
    Table table = ops.table();
    GroupCommit groups = new GroupCommit();
    long seed = groups.commit(table, member(table, "seed", 0, null, null));
    return new Seeded(table, ops, groups, seed);
  }

  @Test
  void aGroupReadsTheTableOnceAndCommitsOnce() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Seeded s = seeded(f, "reads");
      int refreshes = s.ops().refreshes.get();
      int commits = s.ops().commits.get();

      long next = s.groups().commit(s.table(), member(s.table(), "next", 1, s.seed(), null));

      // One read before the group decides which members may commit and no other before the
      // catalog commit (each one a round trip to a REST catalog). After it, a REST catalog's
      // operations hold the committed metadata; a JDBC catalog's read it once, lazily.
      assertThat(s.ops().refreshes.get() - refreshes).isEqualTo(1);
      assertThat(s.ops().commits.get() - commits).isEqualTo(1);
      assertThat(f.table("reads", "id").currentSnapshot().snapshotId()).isEqualTo(next);
      assertThat(s.table().currentSnapshot().snapshotId())
          .as("the committing table holds the committed metadata")
          .isEqualTo(next);
    }
  }

  @Test
  void aCommitStandsWhenTheTableCannotBeReadAfterTheSwap() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Seeded s = seeded(f, "unreadable");
      // A cancelled copy's interrupted thread, or storage gone, right after the catalog swap: the
      // copy must learn it committed, not fail (and remove the files the table now holds).
      s.ops().failReadsAfterNextCommit();

      long next = s.groups().commit(s.table(), member(s.table(), "next", 1, s.seed(), null));

      Table after = f.table("unreadable", "id");
      assertThat(after.currentSnapshot().snapshotId()).isEqualTo(next);
      assertThat(committedSegments(after)).containsExactly("seed", "next");
    }
  }

  @Test
  void aCommitThatLosesTheRaceReadsTheTableAgainAndCommitsOnTop() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Seeded s = seeded(f, "race");
      Table table = s.table();
      int refreshes = s.ops().refreshes.get();
      // The member is staged after the group's read; another writer commits into another
      // partition meanwhile, so the group's catalog commit fails once and is made again on top.
      CountDownLatch hold = new CountDownLatch(1);
      CountDownLatch entered = new CountDownLatch(1);
      CompletableFuture<Long> mine =
          CompletableFuture.supplyAsync(
              () -> s.groups().commit(table, member(table, "mine", 1, s.seed(), hold, entered)));
      assertThat(entered.await(1, TimeUnit.MINUTES)).isTrue();
      commitFromAnotherWriter(f, "race", 2);
      hold.countDown();

      long snapshot = mine.get(1, TimeUnit.MINUTES);
      Table after = f.table("race", "id");
      assertThat(committedSegments(after)).containsExactly("seed", "other", "mine");
      assertThat(after.currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(after.snapshot(snapshot).parentId())
          .isEqualTo(after.snapshot(after.currentSnapshot().parentId()).snapshotId());
      assertThat(s.ops().refreshes.get() - refreshes)
          .as("the group's read, and one more after the lost race")
          .isEqualTo(2);
      assertThat(s.ops().commits.get()).as("seed, the lost attempt, the retry").isEqualTo(3);
    }
  }

  /**
   * Another broker (its own table instance) commits segment "other" into {@code partition} of table
   * {@code name}.
   */
  private static void commitFromAnotherWriter(TableFixture f, String name, int partition) {
    Table otherBroker = f.table(name, "id");
    RowDelta other =
        otherBroker
            .newRowDelta()
            .addRows(MetadataOnlyFiles.dataFile(otherBroker, "other", partition));
    SegmentSummary.write(
        List.of(new SegmentSummary.Segment("id", partition, 0, 0, "other", 0, 0)), other::set);
    other.commit();
  }

  private static void awaitWaiting(GroupCommit groups, Table table, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (groups.waiting(table) < count && System.nanoTime() < deadline) {
      Thread.sleep(5); // polls a condition; there is no event to wait on
    }
    assertThat(groups.waiting(table)).isEqualTo(count);
  }

  private static int metadataVersions(Table table) {
    return ((org.apache.iceberg.HasTableOperations) table)
            .operations()
            .current()
            .previousFiles()
            .size()
        + 1;
  }
}
