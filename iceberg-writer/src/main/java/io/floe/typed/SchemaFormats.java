package io.floe.typed;

import io.floe.typed.avro.AvroFormat;
import io.floe.typed.protobuf.ProtobufFormat;

/** The {@link SchemaFormat} of each typed {@link ColumnFormat.Format}. */
public final class SchemaFormats {
  private static final SchemaFormat AVRO = new AvroFormat();
  private static final SchemaFormat PROTOBUF = new ProtobufFormat();

  private SchemaFormats() {}

  public static SchemaFormat of(ColumnFormat.Format format) {
    return switch (format) {
      case AVRO -> AVRO;
      case PROTOBUF -> PROTOBUF;
      default ->
          throw new IllegalArgumentException(
              "no schema format for " + format.configName() + " yet");
    };
  }
}
