package io.floe.typed.avro;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg type of an Avro schema (the mapping is in {@link AvroFormat}'s javadoc), with field
 * ids numbered from 1 depth-first: a field, then what is inside it, then its next sibling.
 */
final class AvroTypeMapper {
  private final Set<String> recordsOnPath = new HashSet<>();
  private int nextId = 1;

  private AvroTypeMapper() {}

  /** The Iceberg type of a schema that is not null (a record, a union, a scalar, ...). */
  static Type icebergType(Schema schema) {
    if (AvroKind.of(schema) == AvroKind.NULL) {
      throw new IllegalArgumentException("a schema of only null has no values to store");
    }
    return new AvroTypeMapper().convert(schema);
  }

  /** Whether {@code schema} refers back to a record being converted (stored as its bytes). */
  static boolean isRecursiveReference(Schema schema, Set<String> recordsOnPath) {
    return schema.getType() == Schema.Type.RECORD && recordsOnPath.contains(schema.getFullName());
  }

  private Type convert(Schema schema) {
    if (isRecursiveReference(schema, recordsOnPath)) {
      return Types.BinaryType.get();
    }
    AvroKind kind = AvroKind.of(schema);
    return switch (kind) {
      case RECORD -> record(schema);
      case ARRAY -> Types.ListType.ofOptional(nextId++, convert(schema.getElementType()));
      case MAP -> map(schema);
      case OPTIONAL -> convert(schema.getTypes().get(AvroKind.valueBranch(schema)));
      case BRANCHES -> branches(schema);
      case NULL ->
          throw new IllegalArgumentException("null outside a union or a record field: " + schema);
      default -> scalar(kind, schema);
    };
  }

  private Type record(Schema schema) {
    recordsOnPath.add(schema.getFullName());
    List<Types.NestedField> fields = new ArrayList<>();
    for (Schema.Field field : schema.getFields()) {
      if (AvroKind.of(field.schema()) != AvroKind.NULL) {
        int id = nextId++;
        fields.add(Types.NestedField.optional(id, field.name(), convert(field.schema())));
      }
    }
    recordsOnPath.remove(schema.getFullName());
    if (fields.isEmpty()) {
      // Parquet cannot write a group without fields
      throw new IllegalArgumentException(
          "record " + schema.getFullName() + " has no field to store");
    }
    return Types.StructType.of(fields);
  }

  private Type map(Schema schema) {
    int keyId = nextId++;
    int valueId = nextId++;
    return Types.MapType.ofOptional(
        keyId, valueId, Types.StringType.get(), convert(schema.getValueType()));
  }

  private Type branches(Schema union) {
    List<String> names = AvroKind.branchNames(union);
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i) != null) {
        int id = nextId++;
        fields.add(Types.NestedField.optional(id, names.get(i), convert(union.getTypes().get(i))));
      }
    }
    return Types.StructType.of(fields);
  }

  /** The Iceberg type of a kind that is not a record, array, map, union or null. */
  static Type scalar(AvroKind kind, Schema schema) {
    return switch (kind) {
      case BOOLEAN -> Types.BooleanType.get();
      case INT -> Types.IntegerType.get();
      case LONG -> Types.LongType.get();
      case FLOAT -> Types.FloatType.get();
      case DOUBLE -> Types.DoubleType.get();
      case STRING, ENUM -> Types.StringType.get();
      case BYTES -> Types.BinaryType.get();
      case FIXED -> Types.FixedType.ofLength(schema.getFixedSize());
      default -> temporal(kind, schema);
    };
  }

  private static Type temporal(AvroKind kind, Schema schema) {
    return switch (kind) {
      case DECIMAL -> decimal((LogicalTypes.Decimal) schema.getLogicalType());
      case DATE -> Types.DateType.get();
      case TIME_MILLIS, TIME_MICROS -> Types.TimeType.get();
      case TIMESTAMP_MILLIS, TIMESTAMP_MICROS, TIMESTAMP_NANOS -> Types.TimestampType.withZone();
      case LOCAL_TIMESTAMP_MILLIS, LOCAL_TIMESTAMP_MICROS, LOCAL_TIMESTAMP_NANOS ->
          Types.TimestampType.withoutZone();
      default -> throw new IllegalArgumentException("not a scalar: " + kind);
    };
  }

  private static Type decimal(LogicalTypes.Decimal decimal) {
    return Types.DecimalType.of(decimal.getPrecision(), decimal.getScale());
  }
}
