package io.floe.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/** Encodes Kafka magic-v2 batches. */
public final class BatchEncoder {
  private BatchEncoder() {}

  /**
   * Encodes a full v2 batch. Every header field is written as given (baseOffset,
   * partitionLeaderEpoch, magic (must be 2), attributes, lastOffsetDelta, baseTimestamp,
   * maxTimestamp, producerId/epoch, baseSequence) except batchLength and crc, which are computed
   * (CRC-32C over attributes..end), and recordCount, which is written as {@code records.size()}.
   * Records get offsetDelta = offset - baseOffset and timestampDelta = timestamp - baseTimestamp.
   * The records section is compressed as one stream with header.compression(), deterministically.
   * An empty record list with a compressed codec gives an empty records section (as Kafka's empty
   * batches). Compresses as {@link Reencoding#CURRENT}.
   *
   * @return a heap buffer, position 0, limit = the batch size
   */
  public static ByteBuffer encode(BatchHeader header, List<KafkaRecord> records) {
    return encode(header, records, Reencoding.CURRENT);
  }

  /** As {@link #encode(BatchHeader, List)}, compressing as {@code reencoding} does. */
  public static ByteBuffer encode(
      BatchHeader header, List<KafkaRecord> records, Reencoding reencoding) {
    if (header.magic() != 2) {
      throw new IllegalArgumentException(
          "only magic 2 can be encoded, header has magic " + header.magic());
    }
    return encode(header, records.size(), encodeRecords(header, records), reencoding);
  }

  /**
   * Encodes a full v2 batch around an already encoded, uncompressed records section (as {@link
   * #encodeRecords} or {@link RecordBatch#uncompressedRecordBytes()} give it), compressing it with
   * header.compression(). Same rules as {@link #encode(BatchHeader, List)}.
   */
  public static ByteBuffer encode(BatchHeader header, int recordCount, byte[] plain) {
    return encode(header, recordCount, plain, Reencoding.CURRENT);
  }

  /** As {@link #encode(BatchHeader, int, byte[])}, compressing as {@code reencoding} does. */
  public static ByteBuffer encode(
      BatchHeader header, int recordCount, byte[] plain, Reencoding reencoding) {
    if (header.magic() != 2) {
      throw new IllegalArgumentException(
          "only magic 2 can be encoded, header has magic " + header.magic());
    }
    Compression codec = header.compression();
    if (codec == Compression.ZSTD && recordCount > 0 && reencoding != Reencoding.V1) {
      return oneShot(
          header,
          recordCount,
          plain,
          ZstdContexts.maxCompressedLength(plain.length),
          ZstdContexts::compress);
    }
    if (codec == Compression.LZ4 && recordCount > 0 && reencoding.positionsAreLowerBounds()) {
      return oneShot(
          header, recordCount, plain, Lz4Frames.maxFrameLength(plain.length), Lz4Frames::compress);
    }
    byte[] body;
    int bodyLen;
    if (codec == Compression.NONE || recordCount == 0) {
      body = plain;
      bodyLen = plain.length;
    } else {
      Bytes out = new Bytes(Math.max(64, plain.length / 2));
      try (OutputStream c = codec.compress(out)) {
        c.write(plain);
      } catch (IOException e) {
        throw new UncheckedIOException("compressing with " + codec, e);
      }
      body = out.buf();
      bodyLen = out.size();
    }
    long total = (long) BatchHeader.HEADER_SIZE + bodyLen;
    if (total > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("batch too large: " + total + " bytes");
    }
    byte[] batch = new byte[(int) total];
    System.arraycopy(body, 0, batch, BatchHeader.HEADER_SIZE, bodyLen);
    return finish(header, recordCount, batch);
  }

  /** Compresses a records section in one call into the batch's array, after its header. */
  private interface OneShot {
    /** Compresses {@code src} into {@code dst} from {@code offset}; returns the bytes written. */
    int compress(byte[] src, byte[] dst, int offset);
  }

  private static ByteBuffer oneShot(
      BatchHeader header, int recordCount, byte[] plain, long maxBody, OneShot codec) {
    long bound = BatchHeader.HEADER_SIZE + maxBody;
    if (bound > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException("batch too large: " + plain.length + " bytes of records");
    }
    byte[] batch = new byte[(int) bound];
    int bodyLen = codec.compress(plain, batch, BatchHeader.HEADER_SIZE);
    return finish(header, recordCount, Arrays.copyOf(batch, BatchHeader.HEADER_SIZE + bodyLen));
  }

  /** Writes the header (with batch length and CRC) into the first bytes of {@code batch}. */
  private static ByteBuffer finish(BatchHeader header, int recordCount, byte[] batch) {
    ByteBuffer b = ByteBuffer.wrap(batch);
    header.write(b, batch.length - BatchHeader.LOG_OVERHEAD, 0, recordCount);
    CRC32C crc = new CRC32C();
    crc.update(batch, BatchHeader.ATTRIBUTES_OFFSET, batch.length - BatchHeader.ATTRIBUTES_OFFSET);
    b.putInt(BatchHeader.CRC_OFFSET, (int) crc.getValue());
    return b;
  }

  /**
   * The uncompressed records section for these records (compare with
   * RecordBatch.uncompressedRecordBytes()).
   */
  public static byte[] encodeRecords(BatchHeader header, List<KafkaRecord> records) {
    // pass 1: sizes
    long total = 0;
    int n = records.size();
    int[] bodySizes = new int[n];
    byte[][][] headerKeys = new byte[n][][];
    for (int i = 0; i < n; i++) {
      KafkaRecord r = records.get(i);
      long offsetDelta = r.offset() - header.baseOffset();
      if (offsetDelta < Integer.MIN_VALUE || offsetDelta > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "record offset " + r.offset() + " too far from base offset " + header.baseOffset());
      }
      long tsDelta = r.timestamp() - header.baseTimestamp();
      long size =
          1
              + ByteUtils.sizeOfVarlong(tsDelta)
              + ByteUtils.sizeOfVarint((int) offsetDelta)
              + bytesSize(r.key())
              + bytesSize(r.value());
      List<RecordHeader> hs = r.headers();
      size += ByteUtils.sizeOfVarint(hs.size());
      byte[][] keys = new byte[hs.size()][];
      for (int h = 0; h < hs.size(); h++) {
        RecordHeader rh = hs.get(h);
        if (rh == null || rh.key() == null) {
          throw new IllegalArgumentException("null header (key) in record at offset " + r.offset());
        }
        keys[h] = rh.key().getBytes(StandardCharsets.UTF_8);
        size += ByteUtils.sizeOfVarint(keys[h].length) + keys[h].length + bytesSize(rh.value());
      }
      if (size > Integer.MAX_VALUE - 64) {
        throw new IllegalArgumentException("record at offset " + r.offset() + " too large");
      }
      headerKeys[i] = keys;
      bodySizes[i] = (int) size;
      total += ByteUtils.sizeOfVarint((int) size) + size;
    }
    if (total > Integer.MAX_VALUE - 64 - BatchHeader.HEADER_SIZE) {
      throw new IllegalArgumentException("records too large for one batch: " + total + " bytes");
    }
    // pass 2: write
    byte[] out = new byte[(int) total];
    int p = 0;
    for (int i = 0; i < n; i++) {
      KafkaRecord r = records.get(i);
      p = ByteUtils.writeVarint(bodySizes[i], out, p);
      int bodyStart = p;
      out[p++] = 0; // record attributes
      p = ByteUtils.writeVarlong(r.timestamp() - header.baseTimestamp(), out, p);
      p = ByteUtils.writeVarint((int) (r.offset() - header.baseOffset()), out, p);
      p = writeBytes(r.key(), out, p);
      p = writeBytes(r.value(), out, p);
      List<RecordHeader> hs = r.headers();
      p = ByteUtils.writeVarint(hs.size(), out, p);
      for (int h = 0; h < hs.size(); h++) {
        p = writeBytes(headerKeys[i][h], out, p);
        p = writeBytes(hs.get(h).value(), out, p);
      }
      if (p - bodyStart != bodySizes[i]) {
        throw new AssertionError("size mismatch encoding record " + i);
      }
    }
    return out;
  }

  private static long bytesSize(byte[] b) {
    return b == null ? 1 : ByteUtils.sizeOfVarint(b.length) + (long) b.length;
  }

  private static int writeBytes(byte[] b, byte[] out, int p) {
    if (b == null) {
      return ByteUtils.writeVarint(-1, out, p);
    }
    p = ByteUtils.writeVarint(b.length, out, p);
    System.arraycopy(b, 0, out, p, b.length);
    return p + b.length;
  }

  /** A ByteArrayOutputStream exposing its buffer without a copy. */
  private static final class Bytes extends ByteArrayOutputStream {
    Bytes(int size) {
      super(size);
    }

    byte[] buf() {
      return buf;
    }

    @Override
    public int size() {
      return count;
    }
  }
}
