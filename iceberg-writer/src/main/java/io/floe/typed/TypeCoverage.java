package io.floe.typed;

import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Whether a table column can hold every value of a writer schema's type: each field of the writer's
 * structs has a field of the same name in the column's, and each primitive is the same type or one
 * Iceberg promotes it to (int to long, float to double, a decimal of greater precision).
 */
public final class TypeCoverage {
  private TypeCoverage() {}

  public static boolean covers(Type column, Type writer) {
    if (column.isPrimitiveType() || writer.isPrimitiveType()) {
      if (!column.isPrimitiveType() || !writer.isPrimitiveType()) {
        return false;
      }
      return column.equals(writer) || TypeUtil.isPromotionAllowed(writer, column.asPrimitiveType());
    }
    if (column.typeId() != writer.typeId()) {
      return false;
    }
    return switch (column.typeId()) {
      case STRUCT -> coversStruct(column.asStructType(), writer.asStructType());
      case LIST -> covers(column.asListType().elementType(), writer.asListType().elementType());
      case MAP ->
          covers(column.asMapType().keyType(), writer.asMapType().keyType())
              && covers(column.asMapType().valueType(), writer.asMapType().valueType());
      default -> false;
    };
  }

  private static boolean coversStruct(Types.StructType column, Types.StructType writer) {
    for (Types.NestedField field : writer.fields()) {
      Types.NestedField held = column.field(field.name());
      if (held == null || !covers(held.type(), field.type())) {
        return false;
      }
    }
    return true;
  }
}
