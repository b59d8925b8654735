package io.floe.typed.avro;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/** What an Avro schema becomes: its type with the logical types and unions this package maps. */
enum AvroKind {
  NULL,
  BOOLEAN,
  INT,
  LONG,
  FLOAT,
  DOUBLE,
  STRING,
  BYTES,
  FIXED,
  ENUM,
  DECIMAL,
  DATE,
  TIME_MILLIS,
  TIME_MICROS,
  TIMESTAMP_MILLIS,
  TIMESTAMP_MICROS,
  TIMESTAMP_NANOS,
  LOCAL_TIMESTAMP_MILLIS,
  LOCAL_TIMESTAMP_MICROS,
  LOCAL_TIMESTAMP_NANOS,
  RECORD,
  ARRAY,
  MAP,
  /** A union of null and one other type, in either order. */
  OPTIONAL,
  /** Any other union with at least one branch that is not null. */
  BRANCHES;

  /** Iceberg's widest decimal. */
  static final int MAX_DECIMAL_PRECISION = 38;

  static AvroKind of(Schema schema) {
    LogicalType logical = schema.getLogicalType();
    if (logical != null) {
      AvroKind kind = ofLogical(logical, schema.getType());
      if (kind != null) {
        return kind;
      }
    }
    return switch (schema.getType()) {
      case NULL -> NULL;
      case BOOLEAN -> BOOLEAN;
      case INT -> INT;
      case LONG -> LONG;
      case FLOAT -> FLOAT;
      case DOUBLE -> DOUBLE;
      case STRING -> STRING;
      case BYTES -> BYTES;
      case FIXED -> FIXED;
      case ENUM -> ENUM;
      default -> ofComplex(schema);
    };
  }

  private static AvroKind ofComplex(Schema schema) {
    return switch (schema.getType()) {
      case RECORD -> RECORD;
      case ARRAY -> ARRAY;
      case MAP -> MAP;
      case UNION -> ofUnion(schema);
      default -> throw new IllegalArgumentException("Avro type " + schema.getType());
    };
  }

  private static AvroKind ofUnion(Schema union) {
    List<Schema> branches = union.getTypes();
    int nonNull = 0;
    for (Schema branch : branches) {
      if (branch.getType() != Schema.Type.NULL) {
        nonNull++;
      }
    }
    if (nonNull == 0) {
      return NULL;
    }
    return branches.size() == 2 && nonNull == 1 ? OPTIONAL : BRANCHES;
  }

  private static AvroKind ofLogical(LogicalType logical, Schema.Type base) {
    if (logical instanceof LogicalTypes.Decimal decimal) {
      return decimal.getPrecision() <= MAX_DECIMAL_PRECISION ? DECIMAL : null;
    }
    return switch (logical.getName()) {
      case "date" -> DATE;
      case "time-millis" -> TIME_MILLIS;
      case "time-micros" -> TIME_MICROS;
      case "timestamp-millis" -> TIMESTAMP_MILLIS;
      case "timestamp-micros" -> TIMESTAMP_MICROS;
      case "timestamp-nanos" -> TIMESTAMP_NANOS;
      case "local-timestamp-millis" -> LOCAL_TIMESTAMP_MILLIS;
      case "local-timestamp-micros" -> LOCAL_TIMESTAMP_MICROS;
      case "local-timestamp-nanos" -> LOCAL_TIMESTAMP_NANOS;
      case "uuid" -> base == Schema.Type.STRING ? STRING : null;
      default -> null;
    };
  }

  /** The branch of an {@link #OPTIONAL} union that is not null. */
  static int valueBranch(Schema union) {
    return union.getTypes().get(0).getType() == Schema.Type.NULL ? 1 : 0;
  }

  /** The index of a union's null branch, -1 without one. */
  static int nullBranch(Schema union) {
    List<Schema> branches = union.getTypes();
    for (int i = 0; i < branches.size(); i++) {
      if (branches.get(i).getType() == Schema.Type.NULL) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The field names of a {@link #BRANCHES} union's struct, by branch (null for the null branch):
   * the type's name ({@code int}, {@code string}, {@code array}, ...) or a named type's simple
   * name; its full name, dots as underscores, when two named branches share a simple name.
   */
  static List<String> branchNames(Schema union) {
    Set<String> seen = new HashSet<>();
    Set<String> clashing = new HashSet<>();
    for (Schema branch : union.getTypes()) {
      if (isNamed(branch) && !seen.add(branch.getName())) {
        clashing.add(branch.getName());
      }
    }
    List<String> names = new ArrayList<>();
    for (Schema branch : union.getTypes()) {
      if (branch.getType() == Schema.Type.NULL) {
        names.add(null);
      } else if (!isNamed(branch)) {
        names.add(branch.getType().getName());
      } else if (clashing.contains(branch.getName())) {
        names.add(branch.getFullName().replace('.', '_'));
      } else {
        names.add(branch.getName());
      }
    }
    return names;
  }

  private static boolean isNamed(Schema schema) {
    Schema.Type type = schema.getType();
    return type == Schema.Type.RECORD || type == Schema.Type.ENUM || type == Schema.Type.FIXED;
  }
}
