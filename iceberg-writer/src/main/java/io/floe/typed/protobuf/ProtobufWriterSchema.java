package io.floe.typed.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** One Protobuf message type as a writer schema: a struct type and codecs bound to columns. */
final class ProtobufWriterSchema implements WriterSchema {

  private final Descriptor message;
  private final Types.StructType type;

  ProtobufWriterSchema(Descriptor message) {
    this.message = message;
    this.type = ProtoTypes.of(message);
  }

  /** The message type of the payloads. */
  Descriptor descriptor() {
    return message;
  }

  @Override
  public Types.StructType icebergType() {
    return type;
  }

  @Override
  public PayloadCodec bind(Type columnType) {
    return new ProtobufCodec(message, MessageCodec.bind(message, columnType));
  }
}
