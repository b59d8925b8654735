package io.floe.typed;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The schema registry's wire format: magic byte 0, the schema id (4 bytes, big-endian), for
 * Protobuf the path of the message type in its file (a zig-zag varint count, then that many zig-zag
 * varint indexes; a count of 0 stands for the first message), then the payload.
 *
 * <p>Both forms of the first message are kept apart: the single byte 0 (Confluent's serializers)
 * reads as no indexes, a count of 1 and index 0 (some other clients) as the index list {@code [0]},
 * and {@link #prefix} writes each back as it came.
 */
public final class WireFormat {
  public static final byte MAGIC = 0;
  private static final int ID_BYTES = 4;
  private static final int MAX_INDEXES = 64;

  /** Where a record's payload starts, and the schema it names. */
  public record Prefix(int schemaId, List<Integer> messageIndexes, int payloadStart) {}

  private WireFormat() {}

  /**
   * The prefix of {@code bytes}.
   *
   * @param protobuf whether message indexes follow the schema id
   * @throws UndecodablePayloadException if the bytes do not start with the wire format's prefix
   */
  public static Prefix read(byte[] bytes, boolean protobuf) throws UndecodablePayloadException {
    if (bytes.length < 1 + ID_BYTES) {
      throw new UndecodablePayloadException(
          "not the schema registry wire format: " + bytes.length + " bytes, fewer than 5");
    }
    if (bytes[0] != MAGIC) {
      throw new UndecodablePayloadException(
          "not the schema registry wire format: first byte " + (bytes[0] & 0xff) + ", not 0");
    }
    int id =
        ((bytes[1] & 0xff) << 24)
            | ((bytes[2] & 0xff) << 16)
            | ((bytes[3] & 0xff) << 8)
            | (bytes[4] & 0xff);
    if (!protobuf) {
      return new Prefix(id, List.of(), 1 + ID_BYTES);
    }
    int[] at = {1 + ID_BYTES};
    int count = zigZagVarint(bytes, at);
    if (count < 0 || count > MAX_INDEXES) {
      throw new UndecodablePayloadException(
          "invalid Protobuf message index count " + count + " in the wire format prefix");
    }
    if (count == 0) {
      return new Prefix(id, List.of(), at[0]);
    }
    List<Integer> indexes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int index = zigZagVarint(bytes, at);
      if (index < 0) {
        throw new UndecodablePayloadException(
            "invalid Protobuf message index " + index + " in the wire format prefix");
      }
      indexes.add(index);
    }
    return new Prefix(id, List.copyOf(indexes), at[0]);
  }

  /**
   * The prefix for {@code schemaId} and, for Protobuf, {@code messageIndexes}: none is the first
   * message as the single byte 0, any other list (even {@code [0]}) a count and the indexes.
   */
  public static byte[] prefix(int schemaId, List<Integer> messageIndexes, boolean protobuf) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8);
    out.write(MAGIC);
    out.write(schemaId >>> 24);
    out.write(schemaId >>> 16);
    out.write(schemaId >>> 8);
    out.write(schemaId);
    if (protobuf) {
      if (messageIndexes.isEmpty()) {
        out.write(0);
      } else {
        writeZigZag(out, messageIndexes.size());
        messageIndexes.forEach(i -> writeZigZag(out, i));
      }
    }
    return out.toByteArray();
  }

  private static int zigZagVarint(byte[] bytes, int[] at) throws UndecodablePayloadException {
    int raw = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (at[0] >= bytes.length) {
        throw new UndecodablePayloadException(
            "truncated Protobuf message indexes in the wire format prefix");
      }
      int b = bytes[at[0]++];
      raw |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1);
      }
    }
    throw new UndecodablePayloadException(
        "invalid varint in the Protobuf message indexes of the wire format prefix");
  }

  private static void writeZigZag(ByteArrayOutputStream out, int value) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & ~0x7f) != 0) {
      out.write((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }
}
