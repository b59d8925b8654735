package io.floe.typed.json;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** The shape a JSON Schema gives its values: one node per struct, map, list or scalar. */
final class JsonType {

  enum Kind {
    STRUCT,
    MAP,
    LIST,
    STRING,
    DATE,
    TIMESTAMP,
    LONG,
    DOUBLE,
    BOOLEAN,
    /** Any JSON value, kept as its text exactly as the payload wrote it. */
    JSON_TEXT
  }

  static final JsonType STRING = new JsonType(Kind.STRING, List.of(), List.of(), null);
  static final JsonType DATE = new JsonType(Kind.DATE, List.of(), List.of(), null);
  static final JsonType TIMESTAMP = new JsonType(Kind.TIMESTAMP, List.of(), List.of(), null);
  static final JsonType LONG = new JsonType(Kind.LONG, List.of(), List.of(), null);
  static final JsonType DOUBLE = new JsonType(Kind.DOUBLE, List.of(), List.of(), null);
  static final JsonType BOOLEAN = new JsonType(Kind.BOOLEAN, List.of(), List.of(), null);
  static final JsonType JSON_TEXT = new JsonType(Kind.JSON_TEXT, List.of(), List.of(), null);

  final Kind kind;
  final List<String> names;
  final List<JsonType> fields;

  /** The element of a list, the value of a map. */
  final JsonType element;

  private JsonType(Kind kind, List<String> names, List<JsonType> fields, JsonType element) {
    this.kind = kind;
    this.names = names;
    this.fields = fields;
    this.element = element;
  }

  static JsonType struct(List<String> names, List<JsonType> fields) {
    return new JsonType(Kind.STRUCT, List.copyOf(names), List.copyOf(fields), null);
  }

  static JsonType list(JsonType element) {
    return new JsonType(Kind.LIST, List.of(), List.of(), element);
  }

  static JsonType map(JsonType value) {
    return new JsonType(Kind.MAP, List.of(), List.of(), value);
  }

  /** The Iceberg type, field ids numbered from 1 depth first (a field, then what it holds). */
  Type icebergType() {
    return icebergType(new int[] {0});
  }

  private Type icebergType(int[] lastId) {
    switch (kind) {
      case STRUCT:
        List<Types.NestedField> nested = new ArrayList<>(fields.size());
        for (int i = 0; i < fields.size(); i++) {
          int id = ++lastId[0];
          nested.add(
              Types.NestedField.optional(id, names.get(i), fields.get(i).icebergType(lastId)));
        }
        return Types.StructType.of(nested);
      case LIST:
        int elementId = ++lastId[0];
        return Types.ListType.ofOptional(elementId, element.icebergType(lastId));
      case MAP:
        int keyId = ++lastId[0];
        int valueId = ++lastId[0];
        return Types.MapType.ofOptional(
            keyId, valueId, Types.StringType.get(), element.icebergType(lastId));
      default:
        return primitive(kind);
    }
  }

  static Type primitive(Kind kind) {
    switch (kind) {
      case DATE:
        return Types.DateType.get();
      case TIMESTAMP:
        return Types.TimestampType.withZone();
      case LONG:
        return Types.LongType.get();
      case DOUBLE:
        return Types.DoubleType.get();
      case BOOLEAN:
        return Types.BooleanType.get();
      default:
        return Types.StringType.get();
    }
  }
}
