package io.floe.format;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * One v2 batch read from a segment: header, its byte position in the segment, and its raw bytes
 * (the whole batch including the 12-byte offset/length prefix). Instances returned by {@link
 * SegmentBatchReader} or {@link #parse} have magic 2, a known codec and a valid CRC. Records are
 * decoded lazily (and anew) on each call to {@link #records()}.
 */
public final class RecordBatch {
  private byte[] decompressed;
  private final BatchHeader header;
  private final long position;
  private final byte[] bytes; // exactly header.sizeInBytes() bytes, never exposed writable

  RecordBatch(BatchHeader header, long position, byte[] bytes) {
    this.header = header;
    this.position = position;
    this.bytes = bytes;
  }

  /**
   * Validates and wraps one whole batch held in memory (e.g. BatchEncoder output). The buffer's
   * remaining bytes must be exactly one batch. The bytes are copied.
   *
   * @param position the position to report in errors and from {@link #position()}
   */
  public static RecordBatch parse(ByteBuffer batch, long position) {
    byte[] b = new byte[batch.remaining()];
    batch.duplicate().get(b);
    if (b.length < BatchHeader.LOG_OVERHEAD) {
      throw new CorruptBatchException(
          position,
          OptionalLong.empty(),
          "truncated: "
              + b.length
              + " of at least "
              + BatchHeader.LOG_OVERHEAD
              + " bytes expected");
    }
    ByteBuffer w = ByteBuffer.wrap(b);
    long baseOffset = w.getLong(0);
    int len = w.getInt(BatchHeader.LENGTH_OFFSET);
    long expected = (long) len + BatchHeader.LOG_OVERHEAD;
    if (len >= 0 && expected != b.length) {
      throw new CorruptBatchException(
          position,
          OptionalLong.of(baseOffset),
          expected > b.length
              ? "truncated at position "
                  + (position + b.length)
                  + ": "
                  + b.length
                  + " of "
                  + expected
                  + " bytes expected"
              : "batch length field says "
                  + expected
                  + " bytes but "
                  + b.length
                  + " bytes were given");
    }
    return validate(b, position, Integer.MAX_VALUE);
  }

  /** Checks length range, magic, codec and CRC of a fully-read batch. */
  static RecordBatch validate(byte[] b, long position, int maxBatchSize) {
    ByteBuffer w = ByteBuffer.wrap(b);
    long baseOffset = w.getLong(0);
    OptionalLong off = OptionalLong.of(baseOffset);
    int len = w.getInt(BatchHeader.LENGTH_OFFSET);
    checkLengthRange(len, position, baseOffset, maxBatchSize);
    byte magic = w.get(BatchHeader.MAGIC_OFFSET);
    if (magic != 2) {
      throw new UnsupportedBatchException(
          position,
          off,
          "unsupported magic v"
              + magic
              + (magic == 0 || magic == 1
                  ? " (legacy message format; only magic v2 is supported)"
                  : " (only magic v2 is supported)"));
    }
    if (len < BatchHeader.MIN_BATCH_LENGTH) {
      throw new CorruptBatchException(
          position,
          off,
          "batch length "
              + len
              + " out of range: a v2 batch needs at least "
              + BatchHeader.MIN_BATCH_LENGTH);
    }
    BatchHeader h = BatchHeader.read(w, 0);
    CRC32C crc = new CRC32C();
    crc.update(b, BatchHeader.ATTRIBUTES_OFFSET, b.length - BatchHeader.ATTRIBUTES_OFFSET);
    int actual = (int) crc.getValue();
    if (actual != h.crc()) {
      throw new CorruptBatchException(
          position,
          off,
          String.format(
              "CRC mismatch: stored 0x%08x, computed 0x%08x over %d bytes",
              h.crc(), actual, b.length - BatchHeader.ATTRIBUTES_OFFSET));
    }
    int codec = h.attributes() & BatchHeader.COMPRESSION_MASK;
    if (codec > 4) {
      throw new UnsupportedBatchException(
          position,
          off,
          "unknown compression codec id "
              + codec
              + " in attributes 0x"
              + Integer.toHexString(h.attributes() & 0xffff));
    }
    if (h.recordCount() < 0) {
      throw new CorruptBatchException(position, off, "negative record count " + h.recordCount());
    }
    return new RecordBatch(h, position, b);
  }

  static void checkLengthRange(int len, long position, long baseOffset, int maxBatchSize) {
    // magic v0/v1 batches are shorter than v2 ones; the v2 minimum is checked after the magic.
    if (len < 5 || len > maxBatchSize - BatchHeader.LOG_OVERHEAD || len > Integer.MAX_VALUE - 64) {
      throw new CorruptBatchException(
          position,
          OptionalLong.of(baseOffset),
          "batch length "
              + len
              + " out of range ["
              + BatchHeader.MIN_BATCH_LENGTH
              + ", "
              + ((long) maxBatchSize - BatchHeader.LOG_OVERHEAD)
              + "]");
    }
  }

  public BatchHeader header() {
    return header;
  }

  /** Byte position of the batch's first byte (its base offset field) in the segment. */
  public long position() {
    return position;
  }

  /** The whole batch, read-only, positioned at 0. */
  public ByteBuffer rawBytes() {
    return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
  }

  /** Total bytes of the batch (header.sizeInBytes()). */
  public int sizeInBytes() {
    return bytes.length;
  }

  private CorruptBatchException corrupt(String why, Throwable cause) {
    return new CorruptBatchException(position, OptionalLong.of(header.baseOffset()), why, cause);
  }

  /**
   * The (decompressed) records section exactly as stored. Decompressed once and shared with {@link
   * #records()}: callers must not modify the array.
   */
  public byte[] uncompressedRecordBytes() throws CorruptBatchException {
    if (decompressed == null) {
      decompressed = decompress();
    }
    return decompressed;
  }

  private byte[] decompress() throws CorruptBatchException {
    int start = BatchHeader.HEADER_SIZE;
    int len = bytes.length - start;
    Compression c = header.compression();
    if (c == Compression.NONE) {
      byte[] out = new byte[len];
      System.arraycopy(bytes, start, out, 0, len);
      return out;
    }
    if (header.recordCount() == 0 && len == 0) {
      return new byte[0];
    }
    try (InputStream in = c.decompress(new ByteArrayInputStream(bytes, start, len))) {
      return in.readAllBytes();
    } catch (IOException | RuntimeException e) {
      throw corrupt("failed to decompress " + c + " records section (" + len + " bytes): " + e, e);
    } catch (OutOfMemoryError e) {
      throw corrupt("decompressed " + c + " records section too large for memory", e);
    }
  }

  /**
   * Decompresses and decodes all records; validates count, lengths, varints and record attributes.
   */
  public List<KafkaRecord> records() throws CorruptBatchException {
    byte[] data = uncompressedRecordBytes();
    int count = header.recordCount();
    ByteUtils.Cursor c = new ByteUtils.Cursor(data, 0, data.length);
    // each record is at least 7 bytes; don't trust count for pre-sizing beyond that
    List<KafkaRecord> out = new ArrayList<>(Math.min(count, data.length / 7 + 1));
    int i = 0;
    try {
      for (; i < count; i++) {
        out.add(readRecord(c));
      }
    } catch (ByteUtils.Malformed m) {
      String why = "bad record encoding in record " + i + " of " + count + ": " + m.getMessage();
      if (m.unsupported) {
        throw new UnsupportedBatchException(position, OptionalLong.of(header.baseOffset()), why);
      }
      throw corrupt(why, null);
    }
    if (c.remaining() != 0) {
      throw corrupt(
          "bad record encoding: "
              + c.remaining()
              + " bytes left over after the declared "
              + count
              + " records (records section is "
              + data.length
              + " bytes)",
          null);
    }
    return out;
  }

  private KafkaRecord readRecord(ByteUtils.Cursor c) throws ByteUtils.Malformed {
    int start = c.pos;
    int length = c.readVarint("record length");
    if (length < 0 || length > c.remaining()) {
      if (length >= 0) {
        throw new ByteUtils.Malformed(
            "record length "
                + length
                + " at byte "
                + start
                + " exceeds the "
                + c.remaining()
                + " bytes left in the records section");
      }
      throw new ByteUtils.Malformed("negative record length " + length + " at byte " + start);
    }
    int bodyStart = c.pos;
    int limit = bodyStart + length;
    ByteUtils.Cursor r = new ByteUtils.Cursor(c.buf, bodyStart, limit);
    byte attributes = r.readByte("record attributes");
    if (attributes != 0) {
      throw new ByteUtils.Malformed(
          "record attributes must be 0, got 0x"
              + Integer.toHexString(attributes & 0xff)
              + " at byte "
              + bodyStart,
          true);
    }
    long timestampDelta = r.readVarlong("timestampDelta");
    int offsetDelta = r.readVarint("offsetDelta");
    int keyLen = r.readVarint("key length");
    byte[] key = keyLen == -1 ? null : r.readBytes(checkLen(keyLen, "key", r), limit, "key");
    int valueLen = r.readVarint("value length");
    byte[] value =
        valueLen == -1 ? null : r.readBytes(checkLen(valueLen, "value", r), limit, "value");
    List<RecordHeader> headers = readHeaders(r, limit);
    if (r.pos != limit) {
      throw new ByteUtils.Malformed(
          "record at byte "
              + start
              + " declares length "
              + length
              + " but its fields take "
              + (r.pos - bodyStart)
              + " bytes");
    }
    c.pos = limit;
    return new KafkaRecord(
        header.baseOffset() + offsetDelta,
        header.baseTimestamp() + timestampDelta,
        key,
        value,
        headers);
  }

  private static List<RecordHeader> readHeaders(ByteUtils.Cursor r, int limit)
      throws ByteUtils.Malformed {
    int headerCount = r.readVarint("header count");
    if (headerCount < 0) {
      throw new ByteUtils.Malformed("negative header count " + headerCount);
    }
    if (headerCount > r.remaining() / 2) { // each header takes at least 2 bytes
      throw new ByteUtils.Malformed(
          "header count "
              + headerCount
              + " cannot fit in the "
              + r.remaining()
              + " bytes left in the record");
    }
    List<RecordHeader> headers = headerCount == 0 ? List.of() : new ArrayList<>(headerCount);
    for (int h = 0; h < headerCount; h++) {
      int hkLen = r.readVarint("header key length");
      if (hkLen < 0) {
        throw new ByteUtils.Malformed("header " + h + " has invalid key length " + hkLen);
      }
      byte[] hk = r.readBytes(hkLen, limit, "header key");
      String hkey;
      try {
        hkey =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(hk))
                .toString();
      } catch (CharacterCodingException e) {
        throw new ByteUtils.Malformed("header " + h + " key is not valid UTF-8");
      }
      int hvLen = r.readVarint("header value length");
      byte[] hv =
          hvLen == -1
              ? null
              : r.readBytes(checkLen(hvLen, "header value", r), limit, "header value");
      headers.add(new RecordHeader(hkey, hv));
    }
    return headers;
  }

  private static int checkLen(int len, String what, ByteUtils.Cursor r) throws ByteUtils.Malformed {
    if (len < 0) {
      throw new ByteUtils.Malformed("invalid " + what + " length " + len + " at byte " + r.pos);
    }
    return len;
  }

  @Override
  public String toString() {
    return "RecordBatch[position=" + position + ", " + header + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordBatch b
        && position == b.position
        && java.util.Arrays.equals(bytes, b.bytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(position, java.util.Arrays.hashCode(bytes));
  }
}
