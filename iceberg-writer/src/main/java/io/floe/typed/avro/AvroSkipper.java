package io.floe.typed.avro;

import io.floe.typed.UndecodablePayloadException;
import org.apache.avro.Schema;

/**
 * Reads past one value of a schema, checking it is well formed, without building it: the values of
 * recursive references, which are stored as their bytes.
 */
final class AvroSkipper {
  /**
   * Recursive data nests; a payload that nests deeper than this is refused, not a stack overflow.
   */
  private static final int MAX_DEPTH = 1000;

  private AvroSkipper() {}

  static void skip(Schema schema, BinaryInput in) throws UndecodablePayloadException {
    skip(schema, in, 0);
  }

  private static void skip(Schema schema, BinaryInput in, int depth)
      throws UndecodablePayloadException {
    if (depth > MAX_DEPTH) {
      throw new UndecodablePayloadException("values nest deeper than " + MAX_DEPTH);
    }
    switch (schema.getType()) {
      case RECORD -> {
        for (Schema.Field field : schema.getFields()) {
          skip(field.schema(), in, depth + 1);
        }
      }
      case UNION -> {
        int branch = in.unionIndex(schema.getTypes().size());
        skip(schema.getTypes().get(branch), in, depth + 1);
      }
      case ARRAY -> skipBlocks(schema.getElementType(), false, in, depth);
      case MAP -> skipBlocks(schema.getValueType(), true, in, depth);
      default -> skipScalar(schema, in);
    }
  }

  private static void skipBlocks(Schema item, boolean keyed, BinaryInput in, int depth)
      throws UndecodablePayloadException {
    int minBytes = keyed ? 1 : 0;
    for (long count = in.readBlockCount(minBytes); count > 0; count = in.readBlockCount(minBytes)) {
      for (long i = 0; i < count; i++) {
        if (keyed) {
          in.skip(in.readLength("a map key"), "a map key");
        }
        skip(item, in, depth + 1);
      }
    }
  }

  private static void skipScalar(Schema schema, BinaryInput in) throws UndecodablePayloadException {
    switch (schema.getType()) {
      case NULL -> {}
      case BOOLEAN -> in.readBoolean();
      case INT -> in.readInt();
      case LONG -> in.readLong();
      case FLOAT -> in.readFixedInt();
      case DOUBLE -> in.readFixedLong();
      case STRING, BYTES -> in.skip(in.readLength("bytes"), "bytes");
      case FIXED -> in.skip(schema.getFixedSize(), "a fixed");
      case ENUM -> {
        int index = in.readInt();
        if (index < 0 || index >= schema.getEnumSymbols().size()) {
          throw new UndecodablePayloadException(
              "enum index " + index + " is not one of " + schema.getEnumSymbols().size());
        }
      }
      default -> throw new IllegalStateException("not a scalar: " + schema.getType());
    }
  }
}
