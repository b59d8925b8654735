package io.floe.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.BatchHeader;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.SegmentManifest;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One copied segment (a real table on a JDBC catalog, local warehouse) read through the stream
 * directly: from its start, from index positions, continued by {@code reposition}, and against a
 * batch directory that does not match the data.
 */
class ReencodingInputStreamTest {
  private static final String TOPIC = "orders";
  private static final String TOPIC_ID = "CCCCCCCCCCCCCCCCCCCCCC";
  private static final long BASE_OFFSET = 2000;

  @TempDir static Path dir;

  private static Path log;
  private static TableFixture fx;
  private static Table table;
  private static SegmentManifest manifest;
  private static BatchDirectory directory;
  private static byte[] full;

  /** Where each batch starts in {@link #full}, the served stream (and, last, its length). */
  private static long[] starts;

  @BeforeAll
  static void copyOneSegment() throws Exception {
    log =
        SegmentGenerator.seeded(31)
            .startOffset(BASE_OFFSET)
            .randomMix(400)
            .writeTo(dir.resolve("segment.log"));
    fx = new TableFixture(dir, Storage.LOCAL);
    SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, BASE_OFFSET, "stream-test");
    fx.segments.copy(key, SegmentFiles.of(log, BASE_OFFSET));
    table = fx.table(TOPIC, TOPIC_ID);
    manifest = fx.segments.open(key).manifest();
    directory = manifest.directory();
    try (InputStream in = stream(0)) {
      full = in.readAllBytes();
    }
    starts = new long[directory.size() + 1];
    ByteBuffer b = ByteBuffer.wrap(full);
    for (int i = 0; i < directory.size(); i++) {
      starts[i + 1] = starts[i] + BatchHeader.LOG_OVERHEAD + b.getInt((int) starts[i] + 8);
    }
    assertThat(starts[directory.size()]).isEqualTo(full.length);
  }

  @AfterAll
  static void close() throws Exception {
    fx.close();
  }

  private static ReencodingInputStream stream(long position) {
    return stream(directory, manifest.dataFiles(), position);
  }

  private static ReencodingInputStream stream(
      BatchDirectory batches, List<String> dataFiles, long position) {
    return new ReencodingInputStream(
        table.io(), table.schema(), dataFiles, batches, manifest.reencoding(), position);
  }

  /** The served bytes from the batch at or after {@code position} (a directory position) on. */
  private static byte[] from(long position) {
    return Arrays.copyOfRange(
        full, Math.toIntExact(starts[directory.indexAtOrAfter(position)]), full.length);
  }

  @Test
  void fromTheStartItServesTheCopiedSegmentAsTheDirectoryRecordsIt() throws IOException {
    assertThat(directory.size()).isGreaterThan(300);
    assertThat(manifest.reencoding()).isEqualTo(Reencoding.CURRENT);
    List<RecordBatch> original = Batches.read(log);
    Batches.assertSameBatches(original, Batches.read(new ByteArrayInputStream(full)));
    int compressed = 0;
    List<Long> positions = Batches.lowerBoundPositions(original);
    for (int i = 0; i < directory.size(); i++) {
      BatchDirectory.Entry entry = directory.get(i);
      assertThat(directory.encodedPosition(i))
          .as("batch %d at its lower-bound position", i)
          .isEqualTo(positions.get(i))
          .isLessThanOrEqualTo(starts[i]);
      ByteBuffer batch = ByteBuffer.wrap(full).position((int) starts[i]);
      if (Reencoding.compresses(entry.header())) {
        compressed++;
        assertThat(entry.encodedSize()).isEqualTo(61);
        CRC32C crc = new CRC32C();
        crc.update(original.get(i).uncompressedRecordBytes());
        assertThat((int) crc.getValue())
            .as("CRC of batch %d's records", i)
            .isEqualTo(entry.encodedCrc());
      } else {
        assertThat(starts[i + 1] - starts[i]).isEqualTo(entry.encodedSize());
        assertThat(BatchHeader.crcOf(batch))
            .as("CRC field of batch %d", i)
            .isEqualTo(entry.encodedCrc());
      }
    }
    assertThat(compressed).isBetween(1, directory.size() - 1);
    assertThat(directory.encodedSize()).isEqualTo(positions.get(directory.size()));
  }

  @Test
  void fromAnOffsetIndexPositionItServesTheRestByteForByte() throws IOException {
    ByteBuffer index = manifest.offsetIndex();
    assertThat(index.remaining()).as("offset index entries").isGreaterThanOrEqualTo(3 * 8);
    while (index.hasRemaining()) {
      long baseOffset = BASE_OFFSET + index.getInt();
      int position = index.getInt();
      byte[] served;
      try (InputStream in = stream(position)) {
        served = in.readAllBytes();
      }
      assertThat(served).as("from position %d", position).isEqualTo(from(position));
      RecordBatch first = Batches.read(new ByteArrayInputStream(served)).get(0);
      assertThat(first.header().baseOffset()).isEqualTo(baseOffset);
    }
  }

  @Test
  void fromBetweenBatchesItStartsAtTheNextBatchAndPastTheEndItIsEmpty() throws IOException {
    int k = directory.size() / 3;
    try (InputStream in = stream(directory.encodedPosition(k) + 1)) {
      assertThat(in.readAllBytes()).isEqualTo(from(directory.encodedPosition(k + 1)));
    }
    try (InputStream in = stream(directory.encodedSize())) {
      assertThat(in.read()).isEqualTo(-1);
    }
    try (InputStream in = stream(directory.encodedSize() + 10)) {
      assertThat(in.read(new byte[16], 0, 16)).isEqualTo(-1);
    }
  }

  @Test
  void repositionAtTheNextBatchContinuesTheStream() throws IOException {
    int k = directory.size() / 2;
    long next = directory.encodedPosition(k);
    try (ReencodingInputStream in = stream(0)) {
      assertThat(in.readNBytes((int) starts[k])).isEqualTo(Arrays.copyOf(full, (int) starts[k]));

      assertThat(in.reposition(next)).isTrue();
      assertThat(in.readAllBytes()).isEqualTo(from(next));
    }
  }

  @Test
  void repositionInsideTheHeldBatchGoesBackToItsStartOrOnToTheNextBatch() throws IOException {
    int k = directory.size() / 2;
    long start = directory.encodedPosition(k);
    try (ReencodingInputStream in = stream(0)) {
      in.readNBytes((int) starts[k] + 5);
      assertThat(in.reposition(start)).isTrue();
      assertThat(in.readAllBytes()).isEqualTo(from(start));
    }
    try (ReencodingInputStream in = stream(0)) {
      in.readNBytes((int) starts[k] + 5);
      assertThat(in.reposition(start + 1)).isTrue();
      assertThat(in.readAllBytes()).isEqualTo(from(directory.encodedPosition(k + 1)));
    }
  }

  @Test
  void repositionAFewBatchesBackServesThemAgainFromTheKeptBatches() throws IOException {
    int k = directory.size() / 2;
    try (ReencodingInputStream in = stream(0)) {
      in.readNBytes((int) starts[k] + 5);
      assertThat(in.reposition(directory.encodedPosition(k - 2))).isTrue();
      assertThat(in.readAllBytes()).isEqualTo(from(directory.encodedPosition(k - 2)));
    }
  }

  @Test
  void repositionFurtherBackThanTheKeptBatchesOrAheadIsRefusedAndLeavesTheStreamAsItWas()
      throws IOException {
    int k = directory.size() / 2;
    assertThat(starts[k])
        .as("half the segment is more than the kept bytes")
        .isGreaterThan(2L * ReencodingInputStream.KEPT_BYTES);
    long read = starts[k] + 5;
    ReencodingInputStream in = stream(0);
    in.readNBytes((int) read);

    assertThat(in.reposition(0)).isFalse();
    assertThat(in.reposition(directory.encodedPosition(k + 3))).isFalse();
    assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(full, (int) read, full.length));

    in.close();
    assertThat(in.reposition(directory.encodedSize())).as("once closed").isFalse();
  }

  @Test
  void aBatchThatDoesNotReencodeAsCopiedFailsTheReadBeforeAnyOfItsBytes() {
    int j = dataBatchAtOrAfter(directory.size() / 2, false);
    assertAWrongCrcFailsTheReadBeforeTheBatch(j, "would not match the stream");

    BatchDirectory wrongSize = replace(j, e -> withLayout(e, e.encodedSize() + 1, e.encodedCrc()));
    assertThatThrownBy(
            () ->
                readInto(
                    stream(wrongSize, manifest.dataFiles(), directory.encodedPosition(j)),
                    new ByteArrayOutputStream()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("re-encodes to " + directory.get(j).encodedSize() + " bytes");
  }

  @Test
  void aCompressedBatchWhoseRecordsDoNotReencodeAsCopiedFailsTheReadBeforeAnyOfItsBytes() {
    int j = dataBatchAtOrAfter(directory.size() / 2, true);
    assertAWrongCrcFailsTheReadBeforeTheBatch(j, "no longer holds its records exactly");
  }

  /** With batch {@code j}'s recorded CRC wrong, a read serves every batch before it, none of it. */
  private static void assertAWrongCrcFailsTheReadBeforeTheBatch(int j, String message) {
    BatchHeader header = directory.get(j).header();
    BatchDirectory wrongCrc = replace(j, e -> withLayout(e, e.encodedSize(), ~e.encodedCrc()));
    ByteArrayOutputStream served = new ByteArrayOutputStream();
    assertThatThrownBy(() -> readInto(stream(wrongCrc, manifest.dataFiles(), 0), served))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Batch at offset " + header.baseOffset())
        .hasMessageContaining(message);
    assertThat(served.toByteArray())
        .as("every batch before it, none of it")
        .isEqualTo(Arrays.copyOf(full, (int) starts[j]));
  }

  @Test
  void missingRowsFailTheReadLoudly() {
    int j = Math.min(dataBatchAtOrAfter(0, false), dataBatchAtOrAfter(0, true));
    assertThatThrownBy(() -> readInto(stream(directory, List.of(), 0), new ByteArrayOutputStream()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "batch at offset " + directory.get(j).header().baseOffset() + " is incomplete");
  }

  @Test
  void aClosedStreamRefusesReads() throws IOException {
    ReencodingInputStream in = stream(0);
    in.close();
    in.close();
    assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessage("Stream closed");
  }

  @Test
  void anInterruptedReaderStops() throws IOException {
    try (ReencodingInputStream in = stream(0)) {
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(in::read).isInstanceOf(InterruptedIOException.class);
      } finally {
        Thread.interrupted();
      }
    }
  }

  /**
   * The first batch from {@code index} on that holds rows (neither a control nor an empty one),
   * compressed or not.
   */
  private static int dataBatchAtOrAfter(int index, boolean compressed) {
    for (int i = index; i < directory.size(); i++) {
      BatchHeader header = directory.get(i).header();
      if (!directory.get(i).isControl()
          && header.recordCount() > 0
          && Reencoding.compresses(header) == compressed) {
        return i;
      }
    }
    throw new AssertionError("no data batch from " + index);
  }

  private static BatchDirectory.Entry withLayout(BatchDirectory.Entry e, int size, int crc) {
    return new BatchDirectory.Entry(e.header(), e.originalPosition(), size, crc, e.controlBatch());
  }

  private static BatchDirectory replace(int index, UnaryOperator<BatchDirectory.Entry> change) {
    List<BatchDirectory.Entry> entries = new ArrayList<>(directory.entries());
    entries.set(index, change.apply(entries.get(index)));
    return new BatchDirectory(entries);
  }

  private static void readInto(InputStream in, ByteArrayOutputStream out) throws IOException {
    try (in) {
      byte[] buffer = new byte[8192];
      for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
    }
  }
}
