package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.commit.SegmentCommitter;
import io.floe.copy.AbortedTransaction;
import io.floe.fetch.StoredSegment;
import io.floe.format.OffsetRange;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.SegmentManifest;
import io.floe.manifest.Sidecar;
import io.floe.manifest.Sidecar.Section;
import io.floe.manifest.SidecarObjects;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Segments whose sidecar was written the way Floe wrote it before {@link SegmentManifest} (a {@link
 * Sidecar} built by hand from the literal property keys) are fetched, indexed and deleted exactly
 * as before; and this Floe's copies write those same bytes, so an earlier Floe reads them too.
 */
class PreviousSidecarFormatTest {
  private static final String TOPIC = "legacy.orders";
  private static final String TOPIC_ID = "DDDDDDDDDDDDDDDDDDDDDD";
  private static final long BASE = 7000;
  private static final int PARTITION = 2;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Storage.class)
  void aSegmentWithThePreviousSidecarIsServedByteForByteAndDeleted(Storage storage)
      throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(77).startOffset(BASE).randomMix(300);
    Path log = gen.writeTo(dir.resolve("segment.log"));
    List<AbortedTransaction> aborted = new ArrayList<>();
    for (long[] a : gen.abortedTransactions()) {
      aborted.add(new AbortedTransaction(a[0], a[1], a[2]));
    }
    assertThat(aborted).as("the segment aborts transactions").isNotEmpty();
    ByteBuffer txnIndex = TableFixture.txnIndex(aborted);
    ByteBuffer timeIndex = ByteBuffer.allocate(12).putLong(1_700_000_000_000L).putInt(17).flip();
    ByteBuffer producerSnapshot = ByteBuffer.wrap(new byte[] {0, 1, 2, 3, 4, 5, 6, 7});
    ByteBuffer leaderEpochs = ByteBuffer.wrap("0\n1\n0 7000\n".getBytes(StandardCharsets.UTF_8));
    SegmentFiles files =
        new SegmentFiles(log, BASE, timeIndex, txnIndex, producerSnapshot, leaderEpochs);

    try (TableFixture fx = new TableFixture(dir, storage)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, PARTITION, BASE, "written-before");
      asAnEarlierFloe(fx).copy(key, files);
      Table table = fx.table(TOPIC, TOPIC_ID);
      String location = key.sidecarLocation(table.location());
      byte[] copied = SidecarObjects.read(table.io(), location);

      Sidecar asCopied = Sidecar.parse(copied);
      assertThat(lines(asCopied.string(Section.DATA_FILES)))
          .as("the data files are the table's files of this segment")
          .containsExactlyInAnyOrderElementsOf(tableFiles(table));
      Sidecar.Builder previous =
          previousFloeSidecar(key, lastOffset(log), asCopied)
              .put(Section.TIME_INDEX, timeIndex)
              .put(Section.TRANSACTION_INDEX, txnIndex)
              .put(Section.PRODUCER_SNAPSHOT, producerSnapshot)
              .put(Section.LEADER_EPOCH_CHECKPOINT, leaderEpochs);
      byte[] previousBytes = previous.build().toBytes();
      assertThat(copied)
          .as("this Floe's sidecar is byte for byte the one an earlier Floe wrote")
          .isEqualTo(previousBytes);
      SidecarObjects.write(table.io(), location, previousBytes);

      StoredSegment segment = fx.segments.open(key);
      assertThat(segment.manifest().topic()).isEqualTo(TOPIC);
      assertThat(segment.manifest().topicId()).isEqualTo(TOPIC_ID);
      assertThat(segment.manifest().partition()).isEqualTo(PARTITION);
      assertThat(segment.manifest().segmentId()).isEqualTo(key.segmentId());
      assertThat(segment.manifest().offsets()).isEqualTo(new OffsetRange(BASE, lastOffset(log)));
      assertThat(segment.reencoding()).isEqualTo(Reencoding.V2);
      fx.assertServesExactly(key, log);
      assertThat(segment.offsetIndex())
          .isEqualTo(ByteBuffer.wrap(asCopied.require(Section.OFFSET_INDEX)));
      assertThat(segment.timeIndex()).isEqualTo(timeIndex);
      assertThat(segment.transactionIndex()).contains(txnIndex);
      assertThat(segment.producerSnapshot()).contains(producerSnapshot);
      assertThat(segment.leaderEpochCheckpoint()).contains(leaderEpochs);
      assertIndexPointsAtItsBatches(segment);

      fx.segments.delete(key, true, DeleteReason.EXPIRED);
      assertThat(TableFixture.rows(fx.table(TOPIC, TOPIC_ID))).isEmpty();
      assertThat(table.io().newInputFile(location).exists()).isFalse();
      assertThatThrownBy(() -> fx.segments.open(key)).isInstanceOf(SegmentNotFoundException.class);
    }
  }

  @Test
  void aSegmentWithoutOptionalPartsKeepsItsRowsWhenOnlyTheSidecarIsDeleted() throws Exception {
    Path log =
        SegmentGenerator.seeded(78).startOffset(BASE).randomMix(120).writeTo(dir.resolve("s"));
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, PARTITION, BASE, "minimal-before");
      asAnEarlierFloe(fx).copy(key, SegmentFiles.of(log, BASE));
      Table table = fx.table(TOPIC, TOPIC_ID);
      String location = key.sidecarLocation(table.location());
      byte[] copied = SidecarObjects.read(table.io(), location);
      Sidecar asCopied = Sidecar.parse(copied);
      byte[] previousBytes =
          previousFloeSidecar(key, lastOffset(log), asCopied)
              .put(Section.TIME_INDEX, asCopied.require(Section.TIME_INDEX))
              .build()
              .toBytes();
      assertThat(copied).isEqualTo(previousBytes);
      SidecarObjects.write(table.io(), location, previousBytes);
      int rows = TableFixture.rows(table).size();
      assertThat(rows).isPositive();

      StoredSegment segment = fx.segments.open(key);
      fx.assertServesExactly(key, log);
      assertThat(segment.transactionIndex()).isEmpty();
      assertThat(segment.producerSnapshot()).isEmpty();
      assertThat(segment.leaderEpochCheckpoint()).isEmpty();
      assertIndexPointsAtItsBatches(segment);

      fx.segments.delete(key, false, DeleteReason.EXPIRED);
      assertThat(TableFixture.rows(fx.table(TOPIC, TOPIC_ID))).hasSize(rows);
      assertThat(table.io().newInputFile(location).exists()).isFalse();
      for (String file : tableFiles(fx.table(TOPIC, TOPIC_ID))) {
        assertThat(table.io().newInputFile(file).exists()).as(file).isTrue();
      }
    }
  }

  /**
   * The sidecar as Floe built it before the manifest: properties under these literal keys in this
   * order, the data files one per line, and the directory and offset index sections as the copy
   * wrote them (their own formats are unchanged and tested by BatchDirectoryTest).
   */
  /** Copies as the earlier Floe did: re-encoding V2, the last version whose sidecars it read. */
  private static TieredSegments asAnEarlierFloe(TableFixture fx) {
    return new TieredSegments(
        fx.tables,
        new SegmentCommitter(),
        BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
        Reencoding.V2);
  }

  private static Sidecar.Builder previousFloeSidecar(
      SegmentKey key, long lastOffset, Sidecar asCopied) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("topic", key.topic());
    properties.put("topic-id", key.topicId());
    properties.put("partition", Integer.toString(key.partition()));
    properties.put("base-offset", Long.toString(key.baseOffset()));
    properties.put("last-offset", Long.toString(lastOffset));
    properties.put("segment-id", key.segmentId());
    properties.put("encoding-version", "2");
    StringBuilder dataFiles = new StringBuilder();
    for (String file : lines(asCopied.string(Section.DATA_FILES))) {
      dataFiles.append(file).append('\n');
    }
    return Sidecar.builder()
        .properties(properties)
        .put(Section.DATA_FILES, dataFiles.toString())
        .put(Section.BATCH_DIRECTORY, asCopied.require(Section.BATCH_DIRECTORY))
        .put(Section.OFFSET_INDEX, asCopied.require(Section.OFFSET_INDEX));
  }

  private static void assertIndexPointsAtItsBatches(StoredSegment segment) throws IOException {
    ByteBuffer index = segment.offsetIndex();
    assertThat(index.remaining()).isGreaterThanOrEqualTo(8);
    while (index.hasRemaining()) {
      long offset = BASE + index.getInt();
      int position = index.getInt();
      try (InputStream in = segment.fetch(position)) {
        RecordBatch first = Batches.read(in).get(0);
        assertThat(offset)
            .as("at position %d, the batch holding the entry's offset", position)
            .isBetween(first.header().baseOffset(), first.header().lastOffset());
      }
    }
  }

  private static long lastOffset(Path log) {
    List<RecordBatch> batches = Batches.read(log);
    return batches.get(batches.size() - 1).header().lastOffset();
  }

  private static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.isEmpty()) {
        out.add(line);
      }
    }
    return out;
  }

  private static Set<String> tableFiles(Table table) throws IOException {
    table.refresh();
    Set<String> out = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> out.add(t.file().location()));
    }
    return out;
  }
}
