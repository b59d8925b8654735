package io.floe.format;

/** Zig-zag varint / varlong helpers as used by the Kafka v2 record format. */
public final class ByteUtils {
  private ByteUtils() {}

  /** Bytes needed for {@code value} as a zig-zag varint. */
  public static int sizeOfVarint(int value) {
    int v = (value << 1) ^ (value >> 31);
    int bytes = 1;
    while ((v & 0xffffff80) != 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  /** Bytes needed for {@code value} as a zig-zag varlong. */
  public static int sizeOfVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & 0xffffffffffffff80L) != 0L) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  /** Writes a zig-zag varint at {@code pos}; returns the position after it. */
  public static int writeVarint(int value, byte[] dst, int pos) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & 0xffffff80) != 0) {
      dst[pos++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    dst[pos++] = (byte) v;
    return pos;
  }

  /** Writes a zig-zag varlong at {@code pos}; returns the position after it. */
  public static int writeVarlong(long value, byte[] dst, int pos) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0L) {
      dst[pos++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    dst[pos++] = (byte) v;
    return pos;
  }

  /** A cursor over a byte array that decodes varints strictly, failing with {@link Malformed}. */
  static final class Cursor {
    final byte[] buf;
    int pos;
    final int end;

    Cursor(byte[] buf, int pos, int end) {
      this.buf = buf;
      this.pos = pos;
      this.end = end;
    }

    int remaining() {
      return end - pos;
    }

    byte readByte(String what) throws Malformed {
      if (pos >= end) {
        throw new Malformed("unexpected end of data reading " + what + " at byte " + pos);
      }
      return buf[pos++];
    }

    int readVarint(String what) throws Malformed {
      int start = pos;
      int raw = 0;
      for (int shift = 0; shift < 35; shift += 7) {
        if (pos >= end) {
          throw new Malformed("unexpected end of data in varint " + what + " at byte " + start);
        }
        int b = buf[pos++] & 0xff;
        raw |= (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return (raw >>> 1) ^ -(raw & 1);
        }
      }
      throw new Malformed("varint " + what + " at byte " + start + " is longer than 5 bytes");
    }

    long readVarlong(String what) throws Malformed {
      int start = pos;
      long raw = 0;
      for (int shift = 0; shift < 70; shift += 7) {
        if (pos >= end) {
          throw new Malformed("unexpected end of data in varlong " + what + " at byte " + start);
        }
        int b = buf[pos++] & 0xff;
        raw |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return (raw >>> 1) ^ -(raw & 1);
        }
      }
      throw new Malformed("varlong " + what + " at byte " + start + " is longer than 10 bytes");
    }

    /** Reads {@code len} bytes; len must be in [0, limit - pos]. */
    byte[] readBytes(int len, int limit, String what) throws Malformed {
      if (len < 0 || len > limit - pos) {
        throw new Malformed(
            what
                + " length "
                + len
                + " at byte "
                + pos
                + " exceeds the "
                + Math.max(0, limit - pos)
                + " bytes left in the record");
      }
      byte[] out = new byte[len];
      System.arraycopy(buf, pos, out, 0, len);
      pos += len;
      return out;
    }
  }

  /**
   * Internal: a malformed record encoding; converted to {@link CorruptBatchException} with batch
   * context.
   */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;
    final boolean unsupported;

    Malformed(String msg) {
      this(msg, false);
    }

    Malformed(String msg, boolean unsupported) {
      super(msg, null, false, false);
      this.unsupported = unsupported;
    }
  }
}
