package io.floe.typed.avro;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Binds an Avro schema to a column type, once: fields are matched by name and their positions
 * resolved here, so reading a record does no lookups. The column may be wider than the schema's own
 * type (more fields, int as long, float as double, a decimal of greater precision).
 */
final class NodeBuilder {
  private final Set<String> recordsOnPath = new HashSet<>();

  private NodeBuilder() {}

  static AvroNode bind(Schema schema, Type column) {
    return new NodeBuilder().node(schema, column, "the value");
  }

  private AvroNode node(Schema schema, Type column, String path) {
    if (AvroTypeMapper.isRecursiveReference(schema, recordsOnPath)) {
      expect(column, Types.BinaryType.get(), path);
      return new StructuredNodes.SubtreeNode(schema);
    }
    AvroKind kind = AvroKind.of(schema);
    return switch (kind) {
      case RECORD -> record(schema, column, path);
      case ARRAY ->
          new StructuredNodes.ArrayNode(
              node(
                  schema.getElementType(),
                  as(column, Type.TypeID.LIST, path).asListType().elementType(),
                  path + "[]"));
      case MAP -> map(schema, column, path);
      case OPTIONAL ->
          new StructuredNodes.OptionalNode(
              AvroKind.valueBranch(schema),
              node(schema.getTypes().get(AvroKind.valueBranch(schema)), column, path));
      case BRANCHES -> branches(schema, column, path);
      case NULL -> new ScalarNodes.NullNode();
      default -> ScalarBinder.scalar(kind, schema, column, path);
    };
  }

  private AvroNode record(Schema schema, Type column, String path) {
    Types.StructType struct = as(column, Type.TypeID.STRUCT, path).asStructType();
    List<Schema.Field> fields = schema.getFields();
    AvroNode[] nodes = new AvroNode[fields.size()];
    int[] positions = new int[fields.size()];
    recordsOnPath.add(schema.getFullName());
    for (int i = 0; i < nodes.length; i++) {
      Schema.Field field = fields.get(i);
      String fieldPath = path + "." + field.name();
      if (AvroKind.of(field.schema()) == AvroKind.NULL) {
        nodes[i] = new ScalarNodes.NullNode();
        positions[i] = -1;
      } else {
        positions[i] = position(struct, field.name(), fieldPath);
        nodes[i] = node(field.schema(), struct.fields().get(positions[i]).type(), fieldPath);
      }
    }
    recordsOnPath.remove(schema.getFullName());
    return new StructuredNodes.RecordNode(GenericRecord.create(struct), nodes, positions);
  }

  private AvroNode branches(Schema union, Type column, String path) {
    Types.StructType struct = as(column, Type.TypeID.STRUCT, path).asStructType();
    List<String> names = AvroKind.branchNames(union);
    AvroNode[] nodes = new AvroNode[names.size()];
    int[] positions = new int[names.size()];
    for (int i = 0; i < nodes.length; i++) {
      if (names.get(i) == null) {
        positions[i] = -1;
        nodes[i] = new ScalarNodes.NullNode();
      } else {
        String branchPath = path + "." + names.get(i);
        positions[i] = position(struct, names.get(i), branchPath);
        Type type = struct.fields().get(positions[i]).type();
        nodes[i] = node(union.getTypes().get(i), type, branchPath);
      }
    }
    return new StructuredNodes.BranchesNode(GenericRecord.create(struct), nodes, positions);
  }

  private AvroNode map(Schema schema, Type column, String path) {
    Types.MapType map = as(column, Type.TypeID.MAP, path).asMapType();
    expect(map.keyType(), Types.StringType.get(), path + " keys");
    return new StructuredNodes.MapNode(node(schema.getValueType(), map.valueType(), path + "{}"));
  }

  private static int position(Types.StructType struct, String name, String path) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("the column has no field for " + path);
  }

  private static Type as(Type column, Type.TypeID expected, String path) {
    if (column.typeId() != expected) {
      throw new IllegalArgumentException(
          "the column holds " + column + " where " + path + " is a " + expected);
    }
    return column;
  }

  static void expect(Type column, Type own, String path) {
    if (!column.equals(own)) {
      throw mismatch(column, own, path);
    }
  }

  static IllegalArgumentException mismatch(Type column, Type own, String path) {
    return new IllegalArgumentException(
        "the column holds " + column + " where " + path + " is " + own);
  }
}
