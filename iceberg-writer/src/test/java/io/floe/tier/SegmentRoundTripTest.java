package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.copy.AbortedTransaction;
import io.floe.fetch.StoredSegment;
import io.floe.format.Compression;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.TimestampType;
import io.floe.layout.SegmentSummary;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.RowCodec;
import io.floe.testing.Batches;
import io.floe.testing.CatchUp;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Segment -> table -> re-encoded batches, against a real JdbcCatalog on local disk and on S3
 * (S3Proxy).
 */
class SegmentRoundTripTest {
  private static final String TOPIC = "orders.v1";
  private static final String TOPIC_ID = "fXq3cN6tR0m3Q0nS0b6y1w";

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Storage.class)
  void randomSegmentRoundTripsExactly(Storage storage) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(42).startOffset(1000).randomMix(3000);
    Path log = gen.writeTo(dir.resolve("00000000000000001000.log"));
    List<RecordBatch> original = Batches.read(log);
    assertThat(original).hasSizeGreaterThan(2500);

    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 3, 1000, "seg-" + UUID.randomUUID());
      TieredSegments.CopyResult result = f.segments.copy(key, SegmentFiles.of(log, 1000));
      assertThat(result.snapshotId()).isPositive();

      StoredSegment stored = f.segments.open(key);
      List<RecordBatch> served;
      try (InputStream in = stored.fetch(0)) {
        served = Batches.read(in);
      }
      Batches.assertSameBatches(original, served);

      // The indexes' positions are lower bounds of the served stream's: a compressed batch counts
      // its header only.
      BatchDirectory directory = stored.directory();
      List<Long> positions = Batches.lowerBoundPositions(original);
      long servedPosition = 0;
      for (int i = 0; i < served.size(); i++) {
        assertThat(directory.encodedPosition(i))
            .isEqualTo(positions.get(i))
            .isLessThanOrEqualTo(servedPosition);
        servedPosition += served.get(i).header().sizeInBytes();
      }
      assertThat(directory.encodedSize()).isEqualTo(positions.get(served.size()));

      // Iceberg readers see exactly the committed, non-control records.
      Table table = f.table(TOPIC, TOPIC_ID);
      assertVisibleRows(table, expectedVisible(original, gen.abortedTransactions()), 3);
      assertThat(table.properties())
          .containsEntry("kafka.topic", TOPIC)
          .containsEntry("kafka.topic-id", TOPIC_ID);
      assertThat(table.currentSnapshot().summary())
          .containsEntry(SegmentSummary.PARTITION, "3")
          .containsEntry(SegmentSummary.START_OFFSET, "1000")
          .containsEntry(SegmentSummary.END_OFFSET, Long.toString(gen.nextOffset() - 1))
          .containsEntry(SegmentSummary.SEGMENT_ID, key.segmentId())
          .containsEntry(SegmentSummary.TOPIC_ID, TOPIC_ID);
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void fetchFromEveryBatchPositionAndBetween(Storage storage) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(7).randomMix(storage == Storage.S3 ? 60 : 300);
    Path log = gen.writeTo(dir.resolve("0.log"));
    List<RecordBatch> original = Batches.read(log);
    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "s1");
      f.segments.copy(key, SegmentFiles.of(log, 0));
      StoredSegment stored = f.segments.open(key);
      BatchDirectory directory = stored.directory();
      for (int i = 0; i < original.size(); i++) {
        long start = directory.encodedPosition(i);
        for (long position : new long[] {start, start + 1}) {
          int expectedFirst = position == start ? i : i + 1;
          List<RecordBatch> served;
          try (InputStream in = stored.fetch(position)) {
            served = Batches.read(in);
          }
          assertThat(served).as("fetch from %d", position).hasSize(original.size() - expectedFirst);
          if (!served.isEmpty()) {
            Batches.assertSameBatch(original.get(expectedFirst), served.get(0));
            Batches.assertSameBatch(
                original.get(original.size() - 1), served.get(served.size() - 1));
          }
        }
      }
      try (InputStream in = stored.fetch(directory.encodedSize() + 10)) {
        assertThat(in.read()).isEqualTo(-1);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void offsetIndexPointsAtBatchStartsOfTheServedStream(Storage storage) throws Exception {
    // Many small interleaved committed and aborted transactions, compressed: re-encoded sizes
    // differ from the originals, and the index, in lower-bound positions, must still start each
    // fetch at the batch it names.
    SegmentGenerator gen = SegmentGenerator.seeded(11).startOffset(500);
    for (int i = 0; i < 400; i++) {
      long pid = 10 + (i % 3);
      gen.transactionalBatch(pid, (short) 0, Compression.values()[1 + i % 4], 3);
      if (i % 3 == 2) {
        gen.abortMarker(pid, (short) 0);
      } else {
        gen.commitMarker(pid, (short) 0);
      }
    }
    Path log = gen.writeTo(dir.resolve("500.log"));
    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 1, 500, "s2");
      f.segments.copy(key, SegmentFiles.of(log, 500));
      StoredSegment stored = f.segments.open(key);
      List<RecordBatch> original = Batches.read(log);
      long originalSize = original.stream().mapToLong(b -> b.header().sizeInBytes()).sum();
      long reencodedSize;
      try (InputStream in = stored.fetch(0)) {
        reencodedSize = in.readAllBytes().length;
      }
      assertThat(reencodedSize).as("re-encoded size differs").isNotEqualTo(originalSize);
      assertThat(stored.directory().encodedSize())
          .isEqualTo(Batches.lowerBoundPositions(original).get(original.size()))
          .isLessThan(reencodedSize);

      ByteBuffer index = stored.offsetIndex().order(ByteOrder.BIG_ENDIAN);
      assertThat(index.remaining()).isGreaterThan(8 * 5);
      while (index.hasRemaining()) {
        long offset = 500 + index.getInt();
        int position = index.getInt();
        try (InputStream in = stored.fetch(position)) {
          RecordBatch first = io.floe.format.SegmentBatchReader.of(in, position).next();
          assertThat(first.header().baseOffset())
              .as("index entry at position %d", position)
              .isEqualTo(offset);
          assertThat(first.header().baseOffset())
              .isEqualTo(
                  stored
                      .directory()
                      .get(stored.directory().indexAtOrAfter(position))
                      .header()
                      .baseOffset());
        }
      }
      Table table = f.table(TOPIC, TOPIC_ID);
      assertVisibleRows(table, expectedVisible(original, gen.abortedTransactions()), 1);
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void copyingTheSameOffsetsAgainReplacesInsteadOfDuplicating(Storage storage) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(5).startOffset(0).randomMix(400);
    Path log = gen.writeTo(dir.resolve("0.log"));
    List<RecordBatch> original = Batches.read(log);
    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey first = new SegmentKey(TOPIC, TOPIC_ID, 2, 0, "first");
      SegmentKey retry = new SegmentKey(TOPIC, TOPIC_ID, 2, 0, "retry");
      f.segments.copy(first, SegmentFiles.of(log, 0));
      TieredSegments.CopyResult again = f.segments.copy(retry, SegmentFiles.of(log, 0));
      assertThat(again.overlappedDataFiles()).isPositive();

      Table table = f.table(TOPIC, TOPIC_ID);
      assertVisibleRows(table, expectedVisible(original, gen.abortedTransactions()), 2);

      List<RecordBatch> served;
      try (InputStream in = f.segments.open(retry).fetch(0)) {
        served = Batches.read(in);
      }
      assertThat(served).hasSameSizeAs(original);

      // Kafka deletes the failed first attempt later: the retry's rows must stay.
      f.segments.delete(first, true, DeleteReason.COPY_ABANDONED);
      assertVisibleRows(
          f.table(TOPIC, TOPIC_ID), expectedVisible(original, gen.abortedTransactions()), 2);
      // Deleting the live copy removes its rows from the current snapshot; deleting twice is fine.
      f.segments.delete(retry, true, DeleteReason.EXPIRED);
      f.segments.delete(retry, true, DeleteReason.EXPIRED);
      assertThat(TableFixture.rows(f.table(TOPIC, TOPIC_ID))).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void abortSpanningTwoSegmentsHidesRecordsOfBoth(Storage storage) throws Exception {
    long pid = 77;
    SegmentGenerator one =
        SegmentGenerator.seeded(1)
            .startOffset(0)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 50)
            .transactionalBatch(pid, (short) 0, Compression.ZSTD, 4)
            .transactionalBatch(78, (short) 0, Compression.NONE, 2)
            .commitMarker(78, (short) 0)
            .transactionalBatch(pid, (short) 0, Compression.LZ4, 3);
    long firstAborted = 5;
    long twoBase = one.nextOffset();
    SegmentGenerator two =
        SegmentGenerator.seeded(2)
            .startOffset(twoBase)
            .transactionalBatch(pid, (short) 0, Compression.GZIP, 2)
            .abortMarker(pid, (short) 0)
            .batch(Compression.SNAPPY, TimestampType.LOG_APPEND_TIME, 4, 80);
    long abortedLast = twoBase + 1;
    Path logOne = one.writeTo(dir.resolve("one.log"));
    Path logTwo = two.writeTo(dir.resolve("two.log"));

    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey k1 = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "one");
      SegmentKey k2 = new SegmentKey(TOPIC, TOPIC_ID, 0, twoBase, "two");
      f.segments.copy(k1, SegmentFiles.of(logOne, 0));
      assertThat(TableFixture.rows(f.table(TOPIC, TOPIC_ID))).hasSize(5 + 4 + 2 + 3);

      ByteBuffer txnIndex =
          TableFixture.txnIndex(List.of(new AbortedTransaction(pid, firstAborted, abortedLast)));
      f.segments.copy(k2, new SegmentFiles(logTwo, twoBase, null, txnIndex, null, null));

      List<Record> visible = TableFixture.rows(f.table(TOPIC, TOPIC_ID));
      assertThat(visible)
          .extracting(new RowCodec(f.table(TOPIC, TOPIC_ID).schema())::producerIdOf)
          .doesNotContain(pid);
      assertThat(visible).hasSize(5 + 2 + 4);

      // Kafka consumers still get every record of both segments, aborted ones included.
      f.assertServesExactly(k1, logOne);
      f.assertServesExactly(k2, logTwo);
      assertThat(f.segments.open(k2).transactionIndex()).contains(txnIndex);
    }
  }

  @ParameterizedTest
  @EnumSource(Storage.class)
  void sequentialFetchesLikeTheBrokerContinueTheSameReaders(Storage storage) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(21).randomMix(1500);
    Path log = gen.writeTo(dir.resolve("0.log"));
    List<RecordBatch> original = Batches.read(log);
    try (TableFixture f = new TableFixture(dir, storage)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "seq");
      f.segments.copy(key, SegmentFiles.of(log, 0));
      StoredSegment stored = f.segments.open(key);
      BatchDirectory directory = stored.directory();
      List<RecordBatch> served = new ArrayList<>();
      int nextBatch = 0;
      int fetches = 0;
      while (nextBatch < directory.size()) {
        // As RemoteLogManager does: fetch from the batch position, read at most fetchSize bytes,
        // close.
        long start = directory.encodedPosition(nextBatch);
        byte[] buffer;
        try (InputStream in = stored.fetch(start)) {
          buffer = in.readNBytes(16 * 1024);
        }
        fetches++;
        int complete = 0;
        for (RecordBatch b : Batches.readComplete(buffer)) {
          served.add(b);
          complete++;
        }
        nextBatch += Math.max(complete, 1);
        if (complete
            == 0) { // a batch larger than the fetch size: read it whole, as minOneMessage does
          try (InputStream in = stored.fetch(start)) {
            served.add(Batches.read(in).get(0));
          }
        }
      }
      Batches.assertSameBatches(original, served);
      assertThat(stored.reusedStreams())
          .as("fetches that continued earlier readers")
          .isGreaterThan(fetches / 2);
      stored.close();
    }
  }

  static List<KafkaRecord> expectedVisible(List<RecordBatch> batches, List<long[]> aborted) {
    List<KafkaRecord> out = new ArrayList<>();
    for (RecordBatch b : batches) {
      if (b.header().isControl()) {
        continue;
      }
      for (KafkaRecord r : b.records()) {
        boolean hidden = false;
        if (b.header().isTransactional()) {
          for (long[] a : aborted) {
            if (a[0] == b.header().producerId() && r.offset() >= a[1] && r.offset() <= a[2]) {
              hidden = true;
              break;
            }
          }
        }
        if (!hidden) {
          out.add(r);
        }
      }
    }
    return out;
  }

  static void assertVisibleRows(Table table, List<KafkaRecord> expected, int partition) {
    List<Record> rows = TableFixture.rows(table);
    assertThat(rows).hasSameSizeAs(expected);
    List<KafkaRecord> actual = new ArrayList<>();
    RowCodec codec = new RowCodec(table.schema());
    for (Record row : rows) {
      assertThat(((Record) row.get(0)).get(0)).isEqualTo(partition);
      KafkaRecord r = codec.fromRow(row);
      actual.add(r);
    }
    // LOG_APPEND_TIME rows come back with the producer's timestamp through fromRow, like the
    // original record.
    Batches.assertSameRecords("table rows", expected, actual);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aConsumerCatchingUpAsTheBrokerFetchesContinuesOneReaderThroughTheSegment(Compression codec)
      throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(17).startOffset(0);
    for (int i = 0; i < 300; i++) {
      gen.batch(codec, TimestampType.CREATE_TIME, 1 + i % 40, 100 + i % 900);
    }
    Path log = gen.writeTo(dir.resolve("catch-up-" + codec + ".log"));
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 4, 0, "catch-up-" + codec);
      f.segments.copy(key, SegmentFiles.of(log, 0));
      StoredSegment stored = f.segments.open(key);
      java.io.ByteArrayOutputStream served = new java.io.ByteArrayOutputStream();
      CatchUp.read(stored, 8192, served);
      Batches.assertSameBatches(
          Batches.read(log), Batches.read(new java.io.ByteArrayInputStream(served.toByteArray())));
      assertThat(stored.reencodingFetches()).as("fetches").isGreaterThan(10);
      assertThat(stored.reusedStreams())
          .as("every fetch after the first continues the reader the one before left")
          .isEqualTo(stored.reencodingFetches() - 1);
    }
  }
}
