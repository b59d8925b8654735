package io.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.BatchHeader;
import io.floe.format.Compression;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.RecordHeader;
import io.floe.format.SegmentBatchReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads batches and compares them field by field. */
public final class Batches {
  private Batches() {}

  /**
   * The positions Floe's indexes give these batches of a segment copied now (re-encoding V3),
   * spelled out here rather than taken from the code under test: a batch with a codec and records
   * counts its 61-byte header only, any other batch its whole size; the last element is the end.
   */
  public static List<Long> lowerBoundPositions(List<RecordBatch> batches) {
    List<Long> out = new ArrayList<>();
    long position = 0;
    for (RecordBatch b : batches) {
      out.add(position);
      boolean compressed =
          b.header().compression() != Compression.NONE && b.header().recordCount() > 0;
      position += compressed ? 61 : b.header().sizeInBytes();
    }
    out.add(position);
    return out;
  }

  public static List<RecordBatch> read(Path segment) {
    List<RecordBatch> out = new ArrayList<>();
    try (SegmentBatchReader reader = SegmentBatchReader.open(segment)) {
      reader.forEachRemaining(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  public static List<RecordBatch> read(InputStream stream) {
    try (stream) {
      byte[] bytes = stream.readAllBytes();
      List<RecordBatch> out = new ArrayList<>();
      SegmentBatchReader.of(new ByteArrayInputStream(bytes), 0).forEachRemaining(out::add);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The complete batches at the start of {@code bytes}; a trailing partial batch is dropped, as a
   * fetch does.
   */
  public static List<RecordBatch> readComplete(byte[] bytes) {
    List<RecordBatch> out = new ArrayList<>();
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(bytes);
    while (buf.remaining() >= 12) {
      int size = buf.getInt(buf.position() + 8) + 12;
      if (size > buf.remaining()) {
        break;
      }
      java.nio.ByteBuffer one = buf.slice(buf.position(), size);
      out.add(RecordBatch.parse(one, 0));
      buf.position(buf.position() + size);
    }
    return out;
  }

  /** The same batches in the same order, each as {@link #assertSameBatch} checks it. */
  public static void assertSameBatches(List<RecordBatch> expected, List<RecordBatch> actual) {
    assertThat(actual).as("batch count").hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertSameBatch(expected.get(i), actual.get(i));
    }
  }

  /** Every batch and record field equal; byte-identical when uncompressed. */
  public static void assertSameBatch(RecordBatch expected, RecordBatch actual) {
    BatchHeader e = expected.header();
    BatchHeader a = actual.header();
    String at = "batch at offset " + e.baseOffset();
    assertThat(a.baseOffset()).as(at).isEqualTo(e.baseOffset());
    assertThat(a.lastOffsetDelta()).as(at).isEqualTo(e.lastOffsetDelta());
    assertThat(a.partitionLeaderEpoch()).as(at).isEqualTo(e.partitionLeaderEpoch());
    assertThat(a.magic()).as(at).isEqualTo(e.magic());
    assertThat(a.attributes()).as(at).isEqualTo(e.attributes());
    assertThat(a.baseTimestamp()).as(at).isEqualTo(e.baseTimestamp());
    assertThat(a.maxTimestamp()).as(at).isEqualTo(e.maxTimestamp());
    assertThat(a.producerId()).as(at).isEqualTo(e.producerId());
    assertThat(a.producerEpoch()).as(at).isEqualTo(e.producerEpoch());
    assertThat(a.baseSequence()).as(at).isEqualTo(e.baseSequence());
    assertThat(a.recordCount()).as(at).isEqualTo(e.recordCount());
    assertSameRecords(at, expected.records(), actual.records());
    if (e.compression() == Compression.NONE) {
      assertThat(actual.rawBytes()).as(at + " bytes").isEqualTo(expected.rawBytes());
    }
  }

  public static void assertSameRecords(
      String at, List<KafkaRecord> expected, List<KafkaRecord> actual) {
    assertThat(actual).as(at + " record count").hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      KafkaRecord e = expected.get(i);
      KafkaRecord a = actual.get(i);
      String rec = at + ", record " + e.offset();
      assertThat(a.offset()).as(rec).isEqualTo(e.offset());
      assertThat(a.timestamp()).as(rec).isEqualTo(e.timestamp());
      assertThat(a.key()).as(rec + " key").isEqualTo(e.key());
      assertThat(a.value()).as(rec + " value").isEqualTo(e.value());
      assertThat(a.headers()).as(rec + " headers").hasSameSizeAs(e.headers());
      for (int h = 0; h < e.headers().size(); h++) {
        RecordHeader eh = e.headers().get(h);
        RecordHeader ah = a.headers().get(h);
        assertThat(ah.key()).as(rec + " header key").isEqualTo(eh.key());
        assertThat(ah.value()).as(rec + " header value").isEqualTo(eh.value());
      }
    }
  }
}
