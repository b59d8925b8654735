package io.floe.typed.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** The Iceberg type of a message descriptor (the mapping in {@link ProtobufFormat}). */
final class ProtoTypes {

  static final String TIMESTAMP = "google.protobuf.Timestamp";

  /** The wrappers of google/protobuf/wrappers.proto: a message with one field "value" (1). */
  private static final Set<String> WRAPPERS =
      Set.of(
          "google.protobuf.DoubleValue",
          "google.protobuf.FloatValue",
          "google.protobuf.Int64Value",
          "google.protobuf.UInt64Value",
          "google.protobuf.Int32Value",
          "google.protobuf.UInt32Value",
          "google.protobuf.BoolValue",
          "google.protobuf.StringValue",
          "google.protobuf.BytesValue");

  private static final Map<FieldDescriptor.Type, Type> SCALARS =
      new EnumMap<>(FieldDescriptor.Type.class);

  static {
    for (FieldDescriptor.Type type :
        List.of(
            FieldDescriptor.Type.INT32,
            FieldDescriptor.Type.SINT32,
            FieldDescriptor.Type.SFIXED32)) {
      SCALARS.put(type, Types.IntegerType.get());
    }
    for (FieldDescriptor.Type type :
        List.of(
            FieldDescriptor.Type.UINT32,
            FieldDescriptor.Type.FIXED32,
            FieldDescriptor.Type.INT64,
            FieldDescriptor.Type.SINT64,
            FieldDescriptor.Type.SFIXED64)) {
      SCALARS.put(type, Types.LongType.get());
    }
    SCALARS.put(FieldDescriptor.Type.UINT64, Types.DecimalType.of(20, 0));
    SCALARS.put(FieldDescriptor.Type.FIXED64, Types.DecimalType.of(20, 0));
    SCALARS.put(FieldDescriptor.Type.FLOAT, Types.FloatType.get());
    SCALARS.put(FieldDescriptor.Type.DOUBLE, Types.DoubleType.get());
    SCALARS.put(FieldDescriptor.Type.BOOL, Types.BooleanType.get());
    SCALARS.put(FieldDescriptor.Type.STRING, Types.StringType.get());
    SCALARS.put(FieldDescriptor.Type.BYTES, Types.BinaryType.get());
  }

  private int nextId = 1;
  private final Deque<Descriptor> enclosing = new ArrayDeque<>();

  private ProtoTypes() {}

  static Types.StructType of(Descriptor message) {
    ProtoTypes types = new ProtoTypes();
    types.enclosing.push(message);
    return types.struct(message);
  }

  /** Whether a field of this message type, inside {@code enclosing}, holds the message's bytes. */
  static boolean recursive(Descriptor type, Iterable<Descriptor> enclosing) {
    for (Descriptor outer : enclosing) {
      if (outer == type) {
        return true;
      }
    }
    return false;
  }

  static boolean wrapper(Descriptor type) {
    return WRAPPERS.contains(type.getFullName());
  }

  /**
   * The struct members of a message in declaration order: a field, or a oneof (a struct of its
   * members) at the place of its first member.
   */
  static List<Object> members(Descriptor message) {
    List<Object> members = new ArrayList<>();
    for (FieldDescriptor field : message.getFields()) {
      OneofDescriptor oneOf = field.getRealContainingOneof();
      if (oneOf == null) {
        members.add(field);
      } else if (oneOf.getField(0) == field) {
        members.add(oneOf);
      }
    }
    return members;
  }

  private Types.StructType struct(Descriptor message) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (Object member : members(message)) {
      int id = nextId++;
      if (member instanceof FieldDescriptor field) {
        fields.add(Types.NestedField.optional(id, field.getName(), fieldType(field)));
      } else {
        OneofDescriptor oneOf = (OneofDescriptor) member;
        List<Types.NestedField> options = new ArrayList<>();
        for (FieldDescriptor field : oneOf.getFields()) {
          int optionId = nextId++;
          options.add(Types.NestedField.optional(optionId, field.getName(), valueType(field)));
        }
        fields.add(Types.NestedField.optional(id, oneOf.getName(), Types.StructType.of(options)));
      }
    }
    return Types.StructType.of(fields);
  }

  private Type fieldType(FieldDescriptor field) {
    if (field.isMapField()) {
      FieldDescriptor key = field.getMessageType().findFieldByNumber(1);
      FieldDescriptor value = field.getMessageType().findFieldByNumber(2);
      int keyId = nextId++;
      int valueId = nextId++;
      return Types.MapType.ofOptional(keyId, valueId, valueType(key), valueType(value));
    }
    if (field.isRepeated()) {
      int elementId = nextId++;
      return Types.ListType.ofOptional(elementId, valueType(field));
    }
    return valueType(field);
  }

  /** The type of one value of a field (an element if it is repeated). */
  private Type valueType(FieldDescriptor field) {
    switch (field.getJavaType()) {
      case MESSAGE:
        return messageType(field.getMessageType());
      case ENUM:
        return Types.StringType.get();
      default:
        return scalarType(field.getType());
    }
  }

  private Type messageType(Descriptor type) {
    if (type.getFullName().equals(TIMESTAMP)) {
      return Types.TimestampType.withZone();
    }
    if (wrapper(type)) {
      return scalarType(type.findFieldByNumber(1).getType());
    }
    if (recursive(type, enclosing)) {
      return Types.BinaryType.get();
    }
    enclosing.push(type);
    Types.StructType struct = struct(type);
    enclosing.pop();
    return struct;
  }

  static Type scalarType(FieldDescriptor.Type type) {
    Type scalar = SCALARS.get(type);
    if (scalar == null) {
      throw new IllegalArgumentException("not a scalar type: " + type);
    }
    return scalar;
  }
}
