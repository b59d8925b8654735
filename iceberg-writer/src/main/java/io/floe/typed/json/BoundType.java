package io.floe.typed.json;

import com.fasterxml.jackson.core.io.SerializedString;
import io.floe.typed.json.JsonType.Kind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A {@link JsonType} bound to the type of a table column, which may have more fields (merged with
 * other writer schemas): the positions of this schema's fields are found once, here.
 */
final class BoundType {

  final Kind kind;

  /** STRUCT: the column's struct type, for new records. */
  final Types.StructType struct;

  /** STRUCT: an empty record of {@link #struct}; each value is a copy (cheaper than a new one). */
  final GenericRecord template;

  /** STRUCT: this schema's fields in schema order, their names, positions in the column struct. */
  final SerializedString[] names;

  final int[] positions;
  final BoundType[] fields;

  /** STRUCT: property name to index in {@link #fields}. */
  final Map<String, Integer> index;

  /** LIST element, MAP value. */
  final BoundType element;

  private BoundType(
      Kind kind,
      Types.StructType struct,
      SerializedString[] names,
      int[] positions,
      BoundType[] fields,
      BoundType element) {
    this.kind = kind;
    this.struct = struct;
    this.template = struct == null ? null : GenericRecord.create(struct);
    this.names = names;
    this.positions = positions;
    this.fields = fields;
    this.element = element;
    this.index = new HashMap<>();
    for (int i = 0; i < names.length; i++) {
      index.put(names[i].getValue(), i);
    }
  }

  static BoundType bind(JsonType type, Type column, String path) {
    switch (type.kind) {
      case STRUCT:
        return struct(type, column, path);
      case LIST:
        check(column.isListType(), type, column, path);
        return nested(
            Kind.LIST, bind(type.element, column.asListType().elementType(), path + "[]"));
      case MAP:
        check(
            column.isMapType() && column.asMapType().keyType().equals(Types.StringType.get()),
            type,
            column,
            path);
        return nested(Kind.MAP, bind(type.element, column.asMapType().valueType(), path + "{}"));
      default:
        check(column.equals(JsonType.primitive(type.kind)), type, column, path);
        return nested(type.kind, null);
    }
  }

  private static BoundType struct(JsonType type, Type column, String path) {
    check(column.isStructType(), type, column, path);
    Types.StructType struct = column.asStructType();
    List<Types.NestedField> columnFields = struct.fields();
    int size = type.names.size();
    SerializedString[] names = new SerializedString[size];
    int[] positions = new int[size];
    BoundType[] fields = new BoundType[size];
    for (int i = 0; i < size; i++) {
      String name = type.names.get(i);
      // interned, as the parser's property names are: matching them in order is a reference check
      names[i] = new SerializedString(name.intern());
      Types.NestedField field = struct.field(name);
      if (field == null) {
        throw new IllegalArgumentException("column " + pathOrRoot(path) + " has no field " + name);
      }
      positions[i] = columnFields.indexOf(field);
      fields[i] = bind(type.fields.get(i), field.type(), path + "." + name);
    }
    return new BoundType(Kind.STRUCT, struct, names, positions, fields, null);
  }

  private static BoundType nested(Kind kind, BoundType element) {
    return new BoundType(
        kind, null, new SerializedString[0], new int[0], new BoundType[0], element);
  }

  private static void check(boolean holds, JsonType type, Type column, String path) {
    if (!holds) {
      throw new IllegalArgumentException(
          "column " + pathOrRoot(path) + " of type " + column + " cannot hold JSON " + type.kind);
    }
  }

  private static String pathOrRoot(String path) {
    return path.isEmpty() ? "(root)" : path;
  }
}
