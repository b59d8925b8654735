package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.SegmentBatchReader;
import io.floe.format.TimestampType;
import io.floe.layout.SegmentSummary;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas roll their own segments, so after a leader change the new leader copies a segment whose
 * offsets overlap what the old leader tiered only in part. The table takes it, keeps each offset
 * once, every remote segment Kafka knows stays exactly fetchable, and deleting segments in Kafka's
 * order (or a stray copy Kafka cleans up) leaves exactly the offsets of the segments still live.
 */
class ReplicaOverlapTest {
  private static final String TOPIC = "orders";
  private static final String TOPIC_ID = "fXq3cN6tR0m3Q0nS0b6y1w";
  private static final int PARTITION = 2;
  private static final int BATCHES = 120;

  @TempDir Path dir;

  /** One partition's log as every replica holds it: the same batches at the same offsets. */
  private byte[] log;

  private final List<Long> batchPositions = new ArrayList<>();
  private final List<Long> batchBaseOffsets = new ArrayList<>();
  private final List<List<KafkaRecord>> batchRecords = new ArrayList<>();

  @BeforeEach
  void generateTheLog() throws IOException {
    SegmentGenerator gen = SegmentGenerator.seeded(405);
    Compression[] codecs = {Compression.NONE, Compression.ZSTD, Compression.LZ4};
    for (int i = 0; i < BATCHES; i++) {
      gen.batch(codecs[i % codecs.length], TimestampType.CREATE_TIME, 1 + i % 6, 90);
    }
    log = gen.toBytes();
    Path whole = Files.write(dir.resolve("whole.log"), log);
    try (SegmentBatchReader reader = SegmentBatchReader.open(whole)) {
      while (reader.hasNext()) {
        RecordBatch batch = reader.next();
        batchPositions.add(batch.position());
        batchBaseOffsets.add(batch.header().baseOffset());
        batchRecords.add(batch.records());
      }
    }
    batchPositions.add((long) log.length);
    assertThat(batchBaseOffsets).hasSize(BATCHES);
  }

  @Test
  void leaderChangesBackAndForthKeepEachOffsetOnceAndEverySegmentFetchable() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment a1 = copy(f, "a1", 0, 40);
      assertTableHolds(f, 0, 40);

      // Leader change: the new leader's segment holding the first untiered offset starts lower.
      Segment b2 = copy(f, "b2", 25, 60);
      assertThat(summaryOf(f, b2)).containsEntry(SegmentSummary.OVERLAPPED_FILES, "1");
      assertTableHolds(f, 0, 60);
      Segment b3 = copy(f, "b3", 60, 100);
      assertThat(summaryOf(f, b3)).doesNotContainKey(SegmentSummary.OVERLAPPED_FILES);
      // And back: the old leader's segment holding offset 100 starts at batch 80.
      Segment a3 = copy(f, "a3", 80, BATCHES);
      assertTableHolds(f, 0, BATCHES);

      for (Segment s : List.of(a1, b2, b3, a3)) {
        f.assertServesExactly(s.key, s.log);
      }

      // Retention deletes segments in the order of their last offsets.
      f.segments.delete(a1.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 25, BATCHES);
      f.segments.delete(b2.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 60, BATCHES);
      f.assertServesExactly(b3.key, b3.log);
      f.segments.delete(b3.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 80, BATCHES);
      f.assertServesExactly(a3.key, a3.log);
    }
  }

  @Test
  void aRetriedOverlappingCopyStillKeepsEachOffsetOnce() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment a1 = copy(f, "a1", 0, 40);
      Segment b2 = copy(f, "b2", 30, 70);
      int files =
          f.segments.open(a1.key).dataFiles().size() + f.segments.open(b2.key).dataFiles().size();
      // Kafka retries the copy under a new segment id (the first outcome was unknown to it).
      Segment b2again = copy(f, "b2-again", 30, 70);
      assertThat(summaryOf(f, b2again))
          .as("the first attempt's files and a1's, whose rows inside 30..70 it hides")
          .containsEntry(SegmentSummary.OVERLAPPED_FILES, Integer.toString(files));
      assertTableHolds(f, 0, 70);
      f.assertServesExactly(a1.key, a1.log);
      f.assertServesExactly(b2again.key, b2again.log);

      // Kafka deletes the attempt it never finished, then retention the older segment.
      f.segments.delete(b2.key, true, DeleteReason.COPY_ABANDONED);
      assertTableHolds(f, 0, 70);
      f.segments.delete(a1.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 30, 70);
      f.assertServesExactly(b2again.key, b2again.log);
    }
  }

  @Test
  void deletingAStrayCopyShowsTheRowsItHidAgain() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment current = copy(f, "current", 0, 100);
      // A demoted leader's copy that was still running commits after the new leader's: it lies
      // inside the current copy, whose rows 40..79 it hides.
      Segment stray = copy(f, "stray", 40, 80);
      assertTableHolds(f, 0, 100);

      // Kafka never lists the stray copy as a segment of the partition and deletes it: the rows it
      // hid in the current copy must come back, or offsets 40..79 would vanish from the table.
      f.segments.delete(stray.key, true, DeleteReason.COPY_ABANDONED);
      assertTableHolds(f, 0, 100);
      f.assertServesExactly(current.key, current.log);

      f.segments.delete(current.key, true, DeleteReason.EXPIRED);
      assertThat(TableFixture.rows(f.table(TOPIC, TOPIC_ID))).isEmpty();
    }
  }

  @Test
  void aStrayCopyCoveringALiveSegmentWholeTakesNothingAwayWhenDeleted() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment a1 = copy(f, "a1", 0, 40);
      Segment b = copy(f, "b", 40, 70);
      // The demoted leader's copy of 40..100 commits late: it covers b whole, and hides b's rows
      // rather than taking b's files out of the table (Kafka still serves b from them).
      Segment stray = copy(f, "stray", 40, 100);
      Segment c = copy(f, "c", 70, BATCHES);
      assertTableHolds(f, 0, BATCHES);

      f.segments.delete(stray.key, true, DeleteReason.COPY_ABANDONED);
      assertTableHolds(f, 0, BATCHES);
      for (Segment s : List.of(a1, b, c)) {
        f.assertServesExactly(s.key, s.log);
      }
      f.segments.delete(a1.key, true, DeleteReason.EXPIRED);
      f.segments.delete(b.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 70, BATCHES);
      f.assertServesExactly(c.key, c.log);
    }
  }

  @Test
  void anExpiredCopyKeepsTheRowsItHidInOtherCopiesHidden() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment x = copy(f, "x", 0, 30);
      Segment a = copy(f, "a", 30, 50);
      // Another replica's segment covering a whole, and x in part.
      Segment b = copy(f, "b", 20, 80);
      Segment c = copy(f, "c", 80, BATCHES);
      assertTableHolds(f, 0, BATCHES);

      // Retention by size deletes segments in the order of their first offsets and stops before a:
      // Kafka's log now starts after b, so a's rows must not come back with b gone.
      f.segments.delete(x.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 20, BATCHES);
      f.segments.delete(b.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 80, BATCHES);
      f.assertServesExactly(a.key, a.log);
      f.segments.delete(a.key, true, DeleteReason.EXPIRED);
      assertTableHolds(f, 80, BATCHES);
      f.assertServesExactly(c.key, c.log);
    }
  }

  @Test
  void withRowsKeptPastRetentionTheTableStillHoldsEachOffsetOnce() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Segment a1 = copy(f, "a1", 0, 40);
      Segment b2 = copy(f, "b2", 20, 60);
      f.segments.delete(a1.key, false, DeleteReason.EXPIRED);
      f.segments.delete(b2.key, false, DeleteReason.EXPIRED);
      assertTableHolds(f, 0, 60);
    }
  }

  private record Segment(SegmentKey key, Path log) {}

  /** Copies the replica segment made of batches [from, to) of the log. */
  private Segment copy(TableFixture f, String id, int fromBatch, int toBatch) throws IOException {
    int from = (int) (long) batchPositions.get(fromBatch);
    int to = (int) (long) batchPositions.get(toBatch);
    Path file = Files.write(dir.resolve(id + ".log"), Arrays.copyOfRange(log, from, to));
    long base = batchBaseOffsets.get(fromBatch);
    SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, PARTITION, base, id);
    f.segments.copy(key, SegmentFiles.of(file, base));
    return new Segment(key, file);
  }

  private static java.util.Map<String, String> summaryOf(TableFixture f, Segment segment) {
    Table table = f.table(TOPIC, TOPIC_ID);
    for (org.apache.iceberg.Snapshot s : table.snapshots()) {
      if (segment.key.segmentId().equals(s.summary().get(SegmentSummary.SEGMENT_ID))) {
        return s.summary();
      }
    }
    throw new AssertionError("No snapshot of segment " + segment.key.segmentId());
  }

  /** The table's rows are exactly the records of batches [fromBatch, toBatch), each once. */
  private void assertTableHolds(TableFixture f, int fromBatch, int toBatch) {
    List<KafkaRecord> expected = new ArrayList<>();
    for (int b = fromBatch; b < toBatch; b++) {
      expected.addAll(batchRecords.get(b));
    }
    SegmentRoundTripTest.assertVisibleRows(f.table(TOPIC, TOPIC_ID), expected, PARTITION);
  }
}
