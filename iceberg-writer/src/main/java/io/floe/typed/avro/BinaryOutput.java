package io.floe.typed.avro;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.util.Utf8;

/** Writes canonical Avro binary: minimal zig-zag varints, little-endian floats. */
final class BinaryOutput {
  private byte[] bytes;
  private int size;

  BinaryOutput() {
    this(64);
  }

  BinaryOutput(int capacity) {
    bytes = new byte[Math.max(capacity, 16)];
  }

  byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  /** Whether what was written equals {@code other} from {@code from} to {@code to}. */
  boolean sameAs(byte[] other, int from, int to) {
    return Arrays.equals(bytes, 0, size, other, from, to);
  }

  void writeLong(long value) {
    ensure(10);
    long n = (value << 1) ^ (value >> 63);
    while ((n & ~0x7fL) != 0) {
      bytes[size++] = (byte) ((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes[size++] = (byte) n;
  }

  void writeBoolean(boolean value) {
    writeByte(value ? 1 : 0);
  }

  void writeByte(int value) {
    ensure(1);
    bytes[size++] = (byte) value;
  }

  void writeFixedInt(int bits) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      bytes[size++] = (byte) (bits >>> (8 * i));
    }
  }

  void writeFixedLong(long bits) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      bytes[size++] = (byte) (bits >>> (8 * i));
    }
  }

  void writeRaw(byte[] value) {
    writeRaw(value, value.length);
  }

  /** The first {@code length} bytes of {@code value}. */
  private void writeRaw(byte[] value, int length) {
    ensure(length);
    System.arraycopy(value, 0, bytes, size, length);
    size += length;
  }

  /** The remaining bytes of {@code value}, without moving its position. */
  void writeRaw(ByteBuffer value) {
    int length = value.remaining();
    ensure(length);
    value.get(value.position(), bytes, size, length);
    size += length;
  }

  void writeBytes(byte[] value) {
    writeLong(value.length);
    writeRaw(value);
  }

  void writeBytes(ByteBuffer value) {
    writeLong(value.remaining());
    writeRaw(value);
  }

  void writeString(CharSequence value) {
    if (value instanceof Utf8 utf8) {
      writeLong(utf8.getByteLength());
      writeRaw(utf8.getBytes(), utf8.getByteLength());
      return;
    }
    writeBytes(value.toString().getBytes(StandardCharsets.UTF_8));
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
