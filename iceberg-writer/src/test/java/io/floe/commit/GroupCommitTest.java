package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableLayout;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
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
    GenericRecord row = GenericRecord.create(table.schema());
    GenericRecord kafka =
        GenericRecord.create(
            table.schema().findField(TopicTableLayout.KAFKA).type().asStructType());
    kafka.set(0, partition);
    kafka.set(2, java.time.OffsetDateTime.parse("2026-01-01T00:00:00Z"));
    row.set(0, kafka);
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(
        new org.apache.iceberg.data.InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    DataFile file =
        DataFiles.builder(table.spec())
            .withPath(table.location() + "/data/" + name + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withPartition(key)
            .withFileSizeInBytes(100)
            .withRecordCount(1)
            .build();
    return new GroupCommit.Member() {
      @Override
      public void apply(RowDelta delta) {
        entered.countDown();
        if (hold != null) {
          try {
            hold.await(1, TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        delta
            .addRows(file)
            .set(SegmentSummary.SEGMENT_ID, name)
            .conflictDetectionFilter(Expressions.equal(TopicTableLayout.PARTITION, partition))
            .validateNoConflictingDataFiles();
        if (base != null) {
          delta.validateFromSnapshot(base);
        }
      }

      @Override
      public boolean owns(Snapshot snapshot) {
        return name.equals(snapshot.summary().get(SegmentSummary.SEGMENT_ID));
      }
    };
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
      List<String> committed = new ArrayList<>();
      after.snapshots().forEach(s -> committed.add(s.summary().get(SegmentSummary.SEGMENT_ID)));
      assertThat(committed).containsExactlyInAnyOrder("first", "p1-a", "p2");
      assertThat(after.snapshot(a).summary()).containsEntry(SegmentSummary.SEGMENT_ID, "p1-a");
      assertThat(after.snapshot(p2).summary()).containsEntry(SegmentSummary.SEGMENT_ID, "p2");
      // "first" committed alone; p1-a and p2 together in one catalog commit (one more metadata
      // version, not two).
      assertThat(metadataVersions(after)).isEqualTo(metadataBefore + 2);
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
      List<String> committed = new ArrayList<>();
      f.table("paused", "id")
          .snapshots()
          .forEach(s -> committed.add(s.summary().get(SegmentSummary.SEGMENT_ID)));
      assertThat(committed).containsExactly("a", "b", "other", "c", "d");
    }
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
