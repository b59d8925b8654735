package io.floe.typed.avro;

import io.floe.typed.avro.LogicalNodes.TimestampNode.Unit;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** The nodes of scalar kinds, for {@link NodeBuilder}: int and float may be in wider columns. */
final class ScalarBinder {
  private ScalarBinder() {}

  static AvroNode scalar(AvroKind kind, Schema schema, Type column, String path) {
    Type own = AvroTypeMapper.scalar(kind, schema);
    if (kind == AvroKind.INT && column.typeId() == Type.TypeID.LONG) {
      return new ScalarNodes.IntNode(true);
    }
    if (kind == AvroKind.FLOAT && column.typeId() == Type.TypeID.DOUBLE) {
      return new ScalarNodes.FloatNode(true);
    }
    if (kind == AvroKind.DECIMAL) {
      return decimal(schema, (Types.DecimalType) own, column, path);
    }
    NodeBuilder.expect(column, own, path);
    return switch (kind) {
      case BOOLEAN -> new ScalarNodes.BooleanNode();
      case INT -> new ScalarNodes.IntNode(false);
      case LONG -> new ScalarNodes.LongNode();
      case FLOAT -> new ScalarNodes.FloatNode(false);
      case DOUBLE -> new ScalarNodes.DoubleNode();
      case STRING -> new ScalarNodes.StringNode();
      case BYTES -> new ScalarNodes.BytesNode();
      case FIXED -> new ScalarNodes.FixedNode(schema.getFixedSize());
      case ENUM -> new ScalarNodes.EnumNode(schema.getEnumSymbols());
      default -> temporal(kind);
    };
  }

  private static AvroNode temporal(AvroKind kind) {
    return switch (kind) {
      case DATE -> new LogicalNodes.DateNode();
      case TIME_MILLIS -> new LogicalNodes.TimeNode(true);
      case TIME_MICROS -> new LogicalNodes.TimeNode(false);
      case TIMESTAMP_MILLIS -> new LogicalNodes.TimestampNode(Unit.MILLIS, true);
      case TIMESTAMP_MICROS -> new LogicalNodes.TimestampNode(Unit.MICROS, true);
      case TIMESTAMP_NANOS -> new LogicalNodes.TimestampNode(Unit.NANOS, true);
      case LOCAL_TIMESTAMP_MILLIS -> new LogicalNodes.TimestampNode(Unit.MILLIS, false);
      case LOCAL_TIMESTAMP_MICROS -> new LogicalNodes.TimestampNode(Unit.MICROS, false);
      case LOCAL_TIMESTAMP_NANOS -> new LogicalNodes.TimestampNode(Unit.NANOS, false);
      default -> throw new IllegalStateException("not a scalar: " + kind);
    };
  }

  private static AvroNode decimal(Schema schema, Types.DecimalType own, Type column, String path) {
    if (!(column instanceof Types.DecimalType wider)
        || wider.scale() != own.scale()
        || wider.precision() < own.precision()) {
      throw NodeBuilder.mismatch(column, own, path);
    }
    int fixedSize = schema.getType() == Schema.Type.FIXED ? schema.getFixedSize() : -1;
    LogicalTypes.Decimal decimal = (LogicalTypes.Decimal) schema.getLogicalType();
    return new LogicalNodes.DecimalNode(wider.precision(), decimal.getScale(), fixedSize);
  }
}
