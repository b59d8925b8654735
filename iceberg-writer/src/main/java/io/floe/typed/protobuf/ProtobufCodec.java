package io.floe.typed.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.iceberg.data.Record;

/**
 * Protobuf payloads of one message type to records of one struct column and back. protobuf-java
 * parses (and checks UTF-8 of proto3 strings) and serialises; the bound {@link MessageCodec} maps
 * between its {@link DynamicMessage} and the column's record.
 */
final class ProtobufCodec implements PayloadCodec {

  private final Descriptor type;
  private final MessageCodec message;

  ProtobufCodec(Descriptor type, MessageCodec message) {
    this.type = type;
    this.message = message;
  }

  @Override
  public Record decode(ByteBuffer payload) throws UndecodablePayloadException {
    DynamicMessage parsed;
    try {
      parsed = DynamicMessage.parseFrom(type, CodedInputStream.newInstance(payload.duplicate()));
    } catch (IOException e) {
      throw new UndecodablePayloadException(
          "not a valid " + type.getFullName() + " payload: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new UndecodablePayloadException(
          "not a valid " + type.getFullName() + " payload: " + e, e);
    }
    return message.toColumn(parsed);
  }

  @Override
  public byte[] encode(Object value) {
    return message.toProto(value).toByteArray();
  }
}
