package io.floe.typed.avro;

import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import org.apache.avro.Schema;
import org.apache.iceberg.types.Type;

/** A parsed Avro writer schema and the Iceberg type of its payloads. */
final class AvroWriterSchema implements WriterSchema {
  private final Schema schema;
  private final Type type;

  AvroWriterSchema(Schema schema, Type type) {
    this.schema = schema;
    this.type = type;
  }

  Schema avroSchema() {
    return schema;
  }

  @Override
  public Type icebergType() {
    return type;
  }

  @Override
  public PayloadCodec bind(Type columnType) {
    return new AvroCodec(NodeBuilder.bind(schema, columnType));
  }
}
