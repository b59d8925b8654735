package io.floe.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.testing.SegmentGenerator;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorruptInputTest {
  @TempDir Path dir;

  private static int[] positions(byte[] segment) {
    int[] out = new int[64];
    int n = 0;
    ByteBuffer b = ByteBuffer.wrap(segment);
    for (int p = 0; p < segment.length; p += 12 + b.getInt(p + 8)) {
      out[n++] = p;
    }
    return Arrays.copyOf(out, n);
  }

  private static SegmentGenerator threeBatches() {
    return SegmentGenerator.seeded(1)
        .startOffset(500)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 3, 50)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 4, 50)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 2, 50);
  }

  @Test
  void flippedByteIsACrcErrorNamingPositionAndOffset() throws Exception {
    byte[] seg = threeBatches().toBytes();
    int[] pos = positions(seg);
    seg[pos[1] + 70] ^= 0x01; // inside the second batch's records
    Path f = Files.write(dir.resolve("flip.log"), seg);
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      assertThat(r.next().header().baseOffset()).isEqualTo(500);
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .isNotInstanceOf(UnsupportedBatchException.class)
          .hasMessageContaining("position " + pos[1])
          .hasMessageContaining("base offset 503")
          .hasMessageContaining("CRC mismatch")
          .satisfies(
              e -> {
                CorruptBatchException c = (CorruptBatchException) e;
                assertThat(c.position()).isEqualTo(pos[1]);
                assertThat(c.baseOffset()).hasValue(503);
              });
      // the bad batch was consumed: reading continues with the next one
      assertThat(r.hasNext()).isTrue();
      assertThat(r.next().header().baseOffset()).isEqualTo(507);
      assertThat(r.hasNext()).isFalse();
    }
  }

  @Test
  void flippedHeaderByteIsACrcError() throws Exception {
    byte[] seg = threeBatches().toBytes();
    seg[30] ^= 0x40; // baseTimestamp of the first batch
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(seg), 0)) {
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining("position 0")
          .hasMessageContaining("base offset 500")
          .hasMessageContaining("CRC mismatch: stored 0x");
    }
  }

  @Test
  void truncatedFile() throws Exception {
    byte[] seg = threeBatches().toBytes();
    int[] pos = positions(seg);
    int cut = pos[2] + 30;
    Path f = Files.write(dir.resolve("trunc.log"), Arrays.copyOf(seg, cut));
    int expected = seg.length - pos[2];
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      r.next();
      r.next();
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining("position " + pos[2])
          .hasMessageContaining("base offset 507")
          .hasMessageContaining(
              "truncated at position " + cut + ": 30 of " + expected + " bytes expected");
      assertThat(r.hasNext()).isFalse();
    }
    // same through a generic stream
    try (SegmentBatchReader r =
        SegmentBatchReader.of(new ByteArrayInputStream(Arrays.copyOf(seg, cut)), 0)) {
      r.next();
      r.next();
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining(
              "truncated at position " + cut + ": 30 of " + expected + " bytes expected");
    }
    // truncated inside the 12-byte prefix
    try (SegmentBatchReader r =
        SegmentBatchReader.of(new ByteArrayInputStream(Arrays.copyOf(seg, pos[1] + 5)), 0)) {
      r.next();
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining("position " + pos[1])
          .hasMessageContaining("truncated at position " + (pos[1] + 5) + ": 5 of 12 bytes");
    }
  }

  @Test
  void hugeLengthOnShortStreamFailsCheaply() {
    byte[] seg = threeBatches().toBytes();
    ByteBuffer.wrap(seg).putInt(8, Integer.MAX_VALUE - 100);
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(seg), 0)) {
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining("truncated");
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void batchLengthOutOfRange() throws Exception {
    byte[] seg = threeBatches().toBytes();
    ByteBuffer.wrap(seg).putInt(8, 3);
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(seg), 0)) {
      assertThatThrownBy(r::next)
          .isInstanceOf(CorruptBatchException.class)
          .hasMessageContaining("batch length 3 out of range");
    }
    ByteBuffer.wrap(seg).putInt(8, -7);
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(seg), 0)) {
      assertThatThrownBy(r::next).hasMessageContaining("batch length -7 out of range");
    }
    ByteBuffer.wrap(seg).putInt(8, 20); // magic 2 but shorter than a v2 header
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(seg), 0)) {
      assertThatThrownBy(r::next).hasMessageContaining("batch length 20 out of range");
    }
    int[] pos = positions(threeBatches().toBytes());
    try (SegmentBatchReader r =
        SegmentBatchReader.of(new ByteArrayInputStream(threeBatches().toBytes()), 0, pos[1] - 1)) {
      assertThatThrownBy(r::next).hasMessageContaining("out of range");
    }
  }

  @Test
  void legacyMagicIsUnsupported() throws Exception {
    for (byte magic : new byte[] {RecordBatch.MAGIC_VALUE_V0, RecordBatch.MAGIC_VALUE_V1}) {
      SegmentGenerator g =
          SegmentGenerator.seeded(2)
              .batch(Compression.NONE, TimestampType.CREATE_TIME, 2, 10)
              .legacyBatch(magic, Compression.NONE, 3)
              .legacyBatch(magic, Compression.GZIP, 3)
              .batch(Compression.LZ4, TimestampType.CREATE_TIME, 2, 10);
      Path f = g.writeTo(dir.resolve("v" + magic + ".log"));
      try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
        long firstSize = r.next().header().sizeInBytes();
        // legacy uncompressed messages are one log entry each (offsets 2, 3, 4); then one gzip
        // wrapper
        assertThatThrownBy(r::next)
            .isInstanceOf(UnsupportedBatchException.class)
            .hasMessageContaining("magic v" + magic)
            .hasMessageContaining("position " + firstSize)
            .hasMessageContaining("base offset 2");
        for (int i = 0; i < 3; i++) {
          assertThatThrownBy(r::next)
              .isInstanceOf(UnsupportedBatchException.class)
              .hasMessageContaining("unsupported magic v" + magic);
        }
        assertThat(r.next().header().baseOffset()).isEqualTo(8);
      }
    }
  }

  /**
   * Patches a byte of an encoded batch and fixes the CRC so only the structural check can catch it.
   */
  private static ByteBuffer patched(ByteBuffer batch, int index, byte value) {
    byte[] b = new byte[batch.remaining()];
    batch.duplicate().get(b);
    b[index] = value;
    CRC32C crc = new CRC32C();
    crc.update(b, 21, b.length - 21);
    ByteBuffer w = ByteBuffer.wrap(b);
    w.putInt(17, (int) crc.getValue());
    return w;
  }

  private static BatchHeader header(Compression c, int count) {
    return new BatchHeader(
        100, 0, 1, (byte) 2, 0, (short) c.id(), count - 1, 1000, 2000, -1, (short) -1, -1, count);
  }

  private static List<KafkaRecord> records() {
    return List.of(
        new KafkaRecord(100, 1000, "a".getBytes(), "x".getBytes(), List.of()),
        new KafkaRecord(101, 2000, null, new byte[0], List.of(new RecordHeader("h", null))));
  }

  @Test
  void nonZeroRecordAttributesAreUnsupported() {
    ByteBuffer ok = BatchEncoder.encode(header(Compression.NONE, 2), records());
    ByteBuffer bad = patched(ok, 62, (byte) 1); // record 0: [61] = length varint, [62] = attributes
    io.floe.format.RecordBatch b = io.floe.format.RecordBatch.parse(bad, 4242);
    assertThatThrownBy(b::records)
        .isInstanceOf(UnsupportedBatchException.class)
        .hasMessageContaining("position 4242")
        .hasMessageContaining("base offset 100")
        .hasMessageContaining("record attributes must be 0, got 0x1");
  }

  @Test
  void recordCountMismatchAndBadLengths() {
    ByteBuffer ok = BatchEncoder.encode(header(Compression.NONE, 2), records());
    ByteBuffer moreCount = patched(ok, 60, (byte) 3);
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(moreCount, 0).records())
        .isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("record 2 of 3");
    ByteBuffer lessCount = patched(ok, 60, (byte) 1);
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(lessCount, 0).records())
        .hasMessageContaining("bytes left over after the declared 1 records");
    ByteBuffer badLen = patched(ok, 61, (byte) 0x7e); // record length 63: beyond the section
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(badLen, 0).records())
        .hasMessageContaining("bad record encoding")
        .hasMessageContaining("exceeds");
    ByteBuffer badKeyLen = patched(ok, 65, (byte) 0x05); // key length -3
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(badKeyLen, 0).records())
        .hasMessageContaining("bad record encoding")
        .hasMessageContaining("key length");
  }

  @Test
  void unknownCodecIsUnsupported() {
    ByteBuffer ok = BatchEncoder.encode(header(Compression.NONE, 2), records());
    ByteBuffer bad = patched(ok, 22, (byte) 5);
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(bad, 0))
        .isInstanceOf(UnsupportedBatchException.class)
        .hasMessageContaining("unknown compression codec id 5");
    assertThatThrownBy(() -> Compression.fromId(6)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void corruptCompressedStream() {
    ByteBuffer ok = BatchEncoder.encode(header(Compression.ZSTD, 2), records());
    ByteBuffer bad = patched(ok, 61, (byte) 0x55); // zstd frame magic
    assertThatThrownBy(() -> io.floe.format.RecordBatch.parse(bad, 77).records())
        .isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("position 77");
  }

  @Test
  void encoderRoundTripsItsOwnOutputForEveryCodec() {
    for (Compression c : Compression.values()) {
      ByteBuffer enc = BatchEncoder.encode(header(c, 2), records());
      io.floe.format.RecordBatch b = io.floe.format.RecordBatch.parse(enc, 0);
      assertThat(b.records()).isEqualTo(records());
      assertThat(b.header().recordCount()).isEqualTo(2);
      assertThat(b.header().batchLength()).isEqualTo(enc.remaining() - 12);
      assertThat(BatchEncoder.encode(header(c, 2), records())).isEqualTo(enc);
    }
  }
}
