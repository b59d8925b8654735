package io.floe.typed.avro;

import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import java.nio.ByteBuffer;

/** Avro binary payloads of one writer schema to values of one column, and back. */
final class AvroCodec implements PayloadCodec {
  private final AvroNode root;

  AvroCodec(AvroNode root) {
    this.root = root;
  }

  @Override
  public Object decode(ByteBuffer payload) throws UndecodablePayloadException {
    BinaryInput in = new BinaryInput(payload);
    Object value;
    try {
      value = root.read(in);
    } catch (RuntimeException e) {
      // A value the JDK refuses (a date out of range, ...) is a bad payload, not a failed copy
      throw new UndecodablePayloadException("payload not readable: " + e, e);
    }
    in.expectEnd();
    return value;
  }

  @Override
  public byte[] encode(Object value) {
    BinaryOutput out = new BinaryOutput();
    root.write(value, out);
    return out.toByteArray();
  }

  @Override
  public boolean encodesTo(Object value, int form, byte[] bytes, int from, int to) {
    BinaryOutput out = new BinaryOutput(to - from);
    root.write(value, out);
    return out.sameAs(bytes, from, to);
  }
}
