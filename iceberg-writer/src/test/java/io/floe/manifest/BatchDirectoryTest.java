package io.floe.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.BatchHeader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batch directory: positions as the encoded sizes add up, the offset and time indexes derived
 * from it as a broker derives them (spaced by the original batches' sizes), and its stored bytes.
 */
class BatchDirectoryTest {
  private static final long BASE = 100;

  private static BatchHeader header(
      long baseOffset, int lastOffsetDelta, long maxTimestamp, int sizeInBytes) {
    return new BatchHeader(
        baseOffset,
        sizeInBytes - BatchHeader.LOG_OVERHEAD,
        3,
        (byte) 2,
        0x0BADCAFE,
        (short) 0,
        lastOffsetDelta,
        maxTimestamp - 5,
        maxTimestamp,
        -1,
        (short) -1,
        -1,
        lastOffsetDelta + 1);
  }

  /** A batch whose original size is its encoded size. */
  private static BatchDirectory.Entry entry(
      long baseOffset, int lastOffsetDelta, long maxTimestamp, int encodedSize) {
    return entry(baseOffset, lastOffsetDelta, maxTimestamp, encodedSize, encodedSize);
  }

  private static BatchDirectory.Entry entry(
      long baseOffset, int lastOffsetDelta, long maxTimestamp, int originalSize, int encodedSize) {
    return new BatchDirectory.Entry(
        header(baseOffset, lastOffsetDelta, maxTimestamp, originalSize),
        baseOffset * 10,
        encodedSize,
        (int) baseOffset * 31,
        null);
  }

  private static BatchDirectory.Entry controlEntry(long offset, long timestamp) {
    byte[] raw = new byte[100];
    Arrays.fill(raw, (byte) offset);
    BatchHeader marker =
        new BatchHeader(
            offset,
            88,
            3,
            (byte) 2,
            0x7777,
            (short) 0x30,
            0,
            timestamp,
            timestamp,
            42,
            (short) 0,
            -1,
            1);
    return new BatchDirectory.Entry(marker, offset * 10, raw.length, marker.crc(), raw);
  }

  /**
   * Five batches at positions 0, 3000, 5000, 5100 and 10100 (10110 bytes in all), offsets 100..121,
   * the largest timestamp first falling, then growing: 1000, 900, 1100, 1200, 1150.
   */
  private static BatchDirectory fiveBatches() {
    return new BatchDirectory(
        List.of(
            entry(100, 4, 1000, 3000),
            entry(105, 9, 900, 2000),
            controlEntry(115, 1100),
            entry(116, 3, 1200, 5000),
            entry(120, 1, 1150, 10)));
  }

  @Test
  void positionsArePrefixSumsOfTheEncodedSizes() {
    BatchDirectory directory = fiveBatches();

    assertThat(directory.size()).isEqualTo(5);
    assertThat(directory.encodedPosition(0)).isZero();
    assertThat(directory.encodedPosition(1)).isEqualTo(3000);
    assertThat(directory.encodedPosition(2)).isEqualTo(5000);
    assertThat(directory.encodedPosition(3)).isEqualTo(5100);
    assertThat(directory.encodedPosition(4)).isEqualTo(10100);
    assertThat(directory.encodedPosition(5)).isEqualTo(10110);
    assertThat(directory.encodedSize()).isEqualTo(10110);
  }

  @Test
  void aPositionFindsTheBatchStartingThereOrTheNextOne() {
    BatchDirectory directory = fiveBatches();

    assertThat(directory.indexAtOrAfter(0)).isZero();
    assertThat(directory.indexAtOrAfter(-5)).isZero();
    assertThat(directory.indexAtOrAfter(1)).isEqualTo(1);
    assertThat(directory.indexAtOrAfter(2999)).isEqualTo(1);
    assertThat(directory.indexAtOrAfter(3000)).isEqualTo(1);
    assertThat(directory.indexAtOrAfter(3001)).isEqualTo(2);
    assertThat(directory.indexAtOrAfter(5000)).isEqualTo(2);
    assertThat(directory.indexAtOrAfter(5100)).isEqualTo(3);
    assertThat(directory.indexAtOrAfter(10100)).isEqualTo(4);
    assertThat(directory.indexAtOrAfter(10101)).as("past the last batch").isEqualTo(5);
    assertThat(directory.indexAtOrAfter(1 << 30)).isEqualTo(5);
  }

  @Test
  void theOffsetIndexHasAnEntryOnceMoreThanAnIntervalWasWrittenHoldingItsBatchsBaseOffset() {
    BatchDirectory directory = fiveBatches();

    // 3000 + 2000 bytes before the third batch, 100 + 5000 before the fifth.
    assertThat(offsetIndex(directory.offsetIndex(BASE, 4096)))
        .containsExactly(new long[] {115 - BASE, 5000}, new long[] {120 - BASE, 10100});
    assertThat(offsetIndex(directory.offsetIndex(BASE, 0)))
        .as("every batch but the first")
        .containsExactly(
            new long[] {105 - BASE, 3000},
            new long[] {115 - BASE, 5000},
            new long[] {116 - BASE, 5100},
            new long[] {120 - BASE, 10100});
    assertThat(offsetIndex(directory.offsetIndex(BASE, 5000)))
        .as("exactly an interval (5000 before the third batch) is not more than one")
        .containsExactly(new long[] {116 - BASE, 5100});
  }

  @Test
  void indexEntriesAreSpacedByTheOriginalSizesAndPlacedAtTheDirectorysPositions() {
    // Compressed batches as V3 records them: 61 bytes each in the positions, 3000 in the segment.
    BatchDirectory directory =
        new BatchDirectory(
            List.of(
                entry(100, 4, 1000, 3000, 61),
                entry(105, 4, 1100, 3000, 61),
                entry(110, 4, 1200, 3000, 61),
                entry(115, 4, 1300, 3000, 61)));

    assertThat(directory.encodedSize()).isEqualTo(4 * 61);
    assertThat(offsetIndex(directory.offsetIndex(BASE, 4096)))
        .as("6000 original bytes before the third batch, 6000 more before none")
        .containsExactly(new long[] {110 - BASE, 122});
    assertThat(timeIndex(directory.timeIndex(BASE, 4096)))
        .containsExactly(new long[] {1100, 109 - BASE}, new long[] {1300, 119 - BASE});
  }

  @Test
  void theTimeIndexRecordsTheLargestTimestampSoFarWhenItGrew() {
    BatchDirectory directory = fiveBatches();

    // Before the third batch: 1000 (offset 104); before the fifth: 1200 (offset 119). 1150 does
    // not grow the largest, so no entry at the end.
    assertThat(timeIndex(directory.timeIndex(BASE, 4096)))
        .containsExactly(new long[] {1000, 104 - BASE}, new long[] {1200, 119 - BASE});
    // Before the second batch 1000 is written; 900 does not grow it (no entry before the third);
    // 1100 and 1200 do.
    assertThat(timeIndex(directory.timeIndex(BASE, 0)))
        .containsExactly(
            new long[] {1000, 104 - BASE},
            new long[] {1100, 115 - BASE},
            new long[] {1200, 119 - BASE});
  }

  @Test
  void theTimeIndexEndsWithTheLargestTimestampWhenItGrewAfterTheLastEntry() {
    BatchDirectory directory =
        new BatchDirectory(List.of(entry(0, 9, 10, 5000), entry(10, 4, 20, 10)));

    assertThat(timeIndex(directory.timeIndex(0, 4096)))
        .containsExactly(new long[] {10, 9}, new long[] {20, 14});
    assertThat(timeIndex(directory.timeIndex(0, 1 << 20)))
        .as("no interval filled: only the closing entry")
        .containsExactly(new long[] {20, 14});
  }

  @Test
  void anEmptyDirectoryHasNoBytesAndNoIndexEntries() {
    BatchDirectory empty = new BatchDirectory(List.of());

    assertThat(empty.encodedSize()).isZero();
    assertThat(empty.indexAtOrAfter(0)).isZero();
    assertThat(empty.offsetIndex(0, 0).remaining()).isZero();
    assertThat(empty.timeIndex(0, 0).remaining()).isZero();
    assertThat(BatchDirectory.deserialize(empty.serialize()).size()).isZero();
  }

  @Test
  void entriesAreACopy() {
    List<BatchDirectory.Entry> given = new ArrayList<>(fiveBatches().entries());
    BatchDirectory directory = new BatchDirectory(given);
    given.clear();

    assertThat(directory.size()).isEqualTo(5);
    assertThatThrownBy(() -> directory.entries().remove(0))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(directory.get(2).isControl()).isTrue();
    assertThat(directory.get(1).isControl()).isFalse();
  }

  @Test
  void everyFieldSurvivesItsBytes() {
    BatchDirectory directory = fiveBatches();
    byte[] bytes = directory.serialize();

    BatchDirectory read = BatchDirectory.deserialize(bytes);

    assertThat(read.size()).isEqualTo(directory.size());
    for (int i = 0; i < directory.size(); i++) {
      BatchDirectory.Entry expected = directory.get(i);
      BatchDirectory.Entry actual = read.get(i);
      assertThat(actual.header()).isEqualTo(expected.header());
      assertThat(actual.originalPosition()).isEqualTo(expected.originalPosition());
      assertThat(actual.encodedSize()).isEqualTo(expected.encodedSize());
      assertThat(actual.encodedCrc()).isEqualTo(expected.encodedCrc());
      assertThat(actual.controlBatch()).isEqualTo(expected.controlBatch());
    }
    assertThat(read.encodedSize()).isEqualTo(directory.encodedSize());
    assertThat(read.serialize()).isEqualTo(bytes);
  }

  @Test
  void theStoredLayoutIsUnchanged() {
    BatchDirectory.Entry one = entry(100, 4, 1000, 3000);
    BatchHeader h = one.header();
    ByteBuffer expected = ByteBuffer.allocate(4 + 81);
    expected.putInt(1);
    expected.putLong(h.baseOffset()).putInt(h.batchLength()).putInt(h.partitionLeaderEpoch());
    expected.put(h.magic()).putInt(h.crc()).putShort(h.attributes()).putInt(h.lastOffsetDelta());
    expected.putLong(h.baseTimestamp()).putLong(h.maxTimestamp()).putLong(h.producerId());
    expected.putShort(h.producerEpoch()).putInt(h.baseSequence()).putInt(h.recordCount());
    expected.putLong(one.originalPosition()).putInt(one.encodedSize()).putInt(one.encodedCrc());
    expected.putInt(-1);

    assertThat(new BatchDirectory(List.of(one)).serialize()).isEqualTo(expected.array());
    assertThat(fiveBatches().serialize()).hasSize(4 + 5 * 81 + 100);
  }

  @Test
  void damagedBytesAreRefused() {
    byte[] bytes = fiveBatches().serialize();

    assertThatThrownBy(() -> BatchDirectory.deserialize(Arrays.copyOf(bytes, bytes.length - 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Corrupt batch directory");
    assertThatThrownBy(() -> BatchDirectory.deserialize(Arrays.copyOf(bytes, 90)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Corrupt batch directory");
    assertThatThrownBy(() -> BatchDirectory.deserialize(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Corrupt batch directory");
  }

  @Test
  void anImpossibleCountOrLengthIsRefusedBeforeAllocating() {
    byte[] huge = fiveBatches().serialize();
    ByteBuffer.wrap(huge).putInt(0, Integer.MAX_VALUE);
    assertThatThrownBy(() -> BatchDirectory.deserialize(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot fit");

    byte[] negative = fiveBatches().serialize();
    ByteBuffer.wrap(negative).putInt(0, -1);
    assertThatThrownBy(() -> BatchDirectory.deserialize(negative))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Corrupt batch directory");

    byte[] badControl = new BatchDirectory(List.of(entry(0, 0, 1, 10))).serialize();
    ByteBuffer.wrap(badControl).putInt(badControl.length - 4, -2);
    assertThatThrownBy(() -> BatchDirectory.deserialize(badControl))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control batch length -2");

    byte[] hugeControl = new BatchDirectory(List.of(entry(0, 0, 1, 10))).serialize();
    ByteBuffer.wrap(hugeControl).putInt(hugeControl.length - 4, Integer.MAX_VALUE);
    assertThatThrownBy(() -> BatchDirectory.deserialize(hugeControl))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control batch length " + Integer.MAX_VALUE);
  }

  /** Offset index entries as {relative offset, position}. */
  private static List<long[]> offsetIndex(ByteBuffer index) {
    List<long[]> out = new ArrayList<>();
    assertThat(index.remaining() % 8).isZero();
    while (index.hasRemaining()) {
      out.add(new long[] {index.getInt(), index.getInt()});
    }
    return out;
  }

  /** Time index entries as {timestamp, relative offset}. */
  private static List<long[]> timeIndex(ByteBuffer index) {
    List<long[]> out = new ArrayList<>();
    assertThat(index.remaining() % 12).isZero();
    while (index.hasRemaining()) {
      out.add(new long[] {index.getLong(), index.getInt()});
    }
    return out;
  }
}
