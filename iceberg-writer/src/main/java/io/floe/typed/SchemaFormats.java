package io.floe.typed;

import io.floe.typed.avro.AvroFormat;
import io.floe.typed.json.JsonSchemaFormat;
import io.floe.typed.protobuf.ProtobufFormat;

/** The {@link SchemaFormat} of each typed {@link ColumnFormat.Format}. */
public final class SchemaFormats {
  private static final SchemaFormat AVRO = new AvroFormat();
  private static final SchemaFormat PROTOBUF = new ProtobufFormat();
  private static final SchemaFormat JSON_SCHEMA = new JsonSchemaFormat();

  private SchemaFormats() {}

  public static SchemaFormat of(ColumnFormat.Format format) {
    return switch (format) {
      case AVRO -> AVRO;
      case PROTOBUF -> PROTOBUF;
      case JSON_SCHEMA -> JSON_SCHEMA;
      case BINARY -> throw new IllegalArgumentException("binary columns have no schema format");
    };
  }
}
