package io.floe.typed.json;

import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import org.apache.iceberg.types.Type;

/** The writer schema of one JSON Schema: its Iceberg type and codecs bound to table columns. */
final class JsonWriterSchema implements WriterSchema {

  private final JsonType type;
  private final Type icebergType;

  JsonWriterSchema(JsonType type) {
    this.type = type;
    this.icebergType = type.icebergType();
  }

  @Override
  public Type icebergType() {
    return icebergType;
  }

  @Override
  public PayloadCodec bind(Type columnType) {
    return new JsonPayloadCodec(BoundType.bind(type, columnType, ""));
  }
}
