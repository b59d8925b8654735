package io.floe.typed.avro;

import com.google.protobuf.UnsafeByteOperations;
import io.floe.typed.UndecodablePayloadException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.util.Utf8;

/**
 * Reads Avro binary values from a payload, accepting every encoding the spec allows (non-minimal
 * varints, negative block counts with a byte size) and refusing the rest with a message that says
 * why and where, never the bytes.
 */
final class BinaryInput {
  /** Block counts for elements that take no bytes are not bounded by the payload; this is. */
  private static final long MAX_ZERO_WIDTH_ITEMS = 1 << 24;

  private final ByteBuffer buffer;
  private final int start;
  private final int limit;
  private int pos;

  BinaryInput(ByteBuffer payload) {
    this.buffer = payload;
    this.start = payload.position();
    this.limit = payload.limit();
    this.pos = start;
  }

  int position() {
    return pos;
  }

  /** The bytes from {@code from} (a {@link #position()}) to the current position, copied. */
  byte[] copyFrom(int from) {
    byte[] bytes = new byte[pos - from];
    buffer.get(from, bytes);
    return bytes;
  }

  void expectEnd() throws UndecodablePayloadException {
    if (pos != limit) {
      throw new UndecodablePayloadException(
          (limit - pos) + " trailing bytes after the value (at offset " + offset() + ")");
    }
  }

  long readLong() throws UndecodablePayloadException {
    long raw = readVarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  int readInt() throws UndecodablePayloadException {
    int at = offset();
    long raw = readVarint();
    if ((raw >>> 32) != 0) {
      throw new UndecodablePayloadException("int varint out of range at offset " + at);
    }
    int n = (int) raw;
    return (n >>> 1) ^ -(n & 1);
  }

  private long readVarint() throws UndecodablePayloadException {
    int at = offset();
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      require(1, "a varint");
      int b = buffer.get(pos++) & 0xff;
      if (shift == 63 && b > 1) {
        throw new UndecodablePayloadException("varint longer than 64 bits at offset " + at);
      }
      result |= (long) (b & 0x7f) << shift;
      if (b < 0x80) {
        return result;
      }
    }
    throw new UndecodablePayloadException("varint longer than 64 bits at offset " + at);
  }

  boolean readBoolean() throws UndecodablePayloadException {
    require(1, "a boolean");
    int b = buffer.get(pos++);
    if (b != 0 && b != 1) {
      throw new UndecodablePayloadException(
          "boolean byte " + b + " is neither 0 nor 1 at offset " + (offset() - 1));
    }
    return b == 1;
  }

  int readFixedInt() throws UndecodablePayloadException {
    require(4, "a float");
    int bits = 0;
    for (int i = 0; i < 4; i++) {
      bits |= (buffer.get(pos++) & 0xff) << (8 * i);
    }
    return bits;
  }

  long readFixedLong() throws UndecodablePayloadException {
    require(8, "a double");
    long bits = 0;
    for (int i = 0; i < 8; i++) {
      bits |= (buffer.get(pos++) & 0xffL) << (8 * i);
    }
    return bits;
  }

  /** The length prefix of bytes or a string, checked against what is left. */
  int readLength(String what) throws UndecodablePayloadException {
    int at = offset();
    long length = readLong();
    if (length < 0) {
      throw new UndecodablePayloadException(
          "negative length " + length + " of " + what + " at offset " + at);
    }
    if (length > limit - pos) {
      throw truncated(length, what);
    }
    return (int) length;
  }

  byte[] readBytes(int length, String what) throws UndecodablePayloadException {
    require(length, what);
    byte[] bytes = new byte[length];
    buffer.get(pos, bytes);
    pos += length;
    return bytes;
  }

  void skip(int length, String what) throws UndecodablePayloadException {
    require(length, what);
    pos += length;
  }

  /**
   * A string. Well-formed UTF-8 comes as Avro's {@link Utf8} over its own bytes, which Iceberg's
   * Parquet writer and {@link BinaryOutput} take as they are (no decode to UTF-16 and back); other
   * bytes come as a {@code String} with U+FFFD where they are not UTF-8, which re-encodes to other
   * bytes, so the record keeps its own.
   */
  CharSequence readString() throws UndecodablePayloadException {
    byte[] bytes = readBytes(readLength("a string"), "a string");
    return UnsafeByteOperations.unsafeWrap(bytes).isValidUtf8()
        ? new Utf8(bytes)
        : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The item count of the next block of an array or map, 0 at the end. A negative count is followed
   * by the block's size in bytes, which is read and checked but not needed.
   *
   * @param minItemBytes the fewest bytes one item takes, to refuse counts the payload cannot hold
   */
  long readBlockCount(int minItemBytes) throws UndecodablePayloadException {
    int at = offset();
    long count = readLong();
    if (count < 0) {
      if (count == Long.MIN_VALUE) {
        throw new UndecodablePayloadException("block count out of range at offset " + at);
      }
      count = -count;
      int sizeAt = offset();
      long size = readLong();
      if (size < 0 || size > limit - pos) {
        throw new UndecodablePayloadException(
            "block byte size " + size + " at offset " + sizeAt + " does not fit the payload");
      }
    }
    long bound = minItemBytes == 0 ? MAX_ZERO_WIDTH_ITEMS : (limit - pos) / minItemBytes;
    if (count > bound) {
      throw new UndecodablePayloadException(
          "block of " + count + " items at offset " + at + " is longer than the payload");
    }
    return count;
  }

  int unionIndex(int branches) throws UndecodablePayloadException {
    int at = offset();
    int index = readInt();
    if (index < 0 || index >= branches) {
      throw new UndecodablePayloadException(
          "union index " + index + " at offset " + at + " is not one of " + branches + " branches");
    }
    return index;
  }

  private void require(long bytes, String what) throws UndecodablePayloadException {
    if (bytes > limit - pos) {
      throw truncated(bytes, what);
    }
  }

  private UndecodablePayloadException truncated(long bytes, String what) {
    return new UndecodablePayloadException(
        "truncated payload: "
            + what
            + " needs "
            + bytes
            + " bytes at offset "
            + offset()
            + ", "
            + (limit - pos)
            + " left");
  }

  private int offset() {
    return pos - start;
  }
}
