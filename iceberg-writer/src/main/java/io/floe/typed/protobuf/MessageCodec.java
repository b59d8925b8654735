package io.floe.typed.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.DynamicMessage;
import io.floe.typed.UndecodablePayloadException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A message and the struct column that holds it, bound once: for each member of the message, its
 * position in the column struct and the codec of its values.
 */
final class MessageCodec implements ValueCodec {

  private final Descriptor type;
  private final Types.StructType struct;

  /** An empty record of {@link #struct}; each value is a copy (cheaper than a new one). */
  private final GenericRecord template;

  private final List<Slot> slots = new ArrayList<>();
  private final List<OneOfSlot> oneOfs = new ArrayList<>();

  private MessageCodec(Descriptor type, Types.StructType struct) {
    this.type = type;
    this.struct = struct;
    this.template = GenericRecord.create(struct);
  }

  /** The codec of a top-level message for a column of (a widening of) its type. */
  static MessageCodec bind(Descriptor type, Type column) {
    Deque<Descriptor> enclosing = new ArrayDeque<>();
    enclosing.push(type);
    return bind(type, column, "", enclosing);
  }

  private static MessageCodec bind(
      Descriptor type, Type column, String path, Deque<Descriptor> enclosing) {
    if (!column.isStructType()) {
      throw ScalarCodecs.mismatch(path, column, "message " + type.getFullName());
    }
    MessageCodec codec = new MessageCodec(type, column.asStructType());
    for (Object member : ProtoTypes.members(type)) {
      if (member instanceof FieldDescriptor field) {
        Types.NestedField columnField = codec.columnField(field.getName(), path);
        int position = codec.struct.fields().indexOf(columnField);
        codec.slots.add(Slot.of(field, position, columnField.type(), path, enclosing));
      } else {
        OneofDescriptor oneOf = (OneofDescriptor) member;
        Types.NestedField columnField = codec.columnField(oneOf.getName(), path);
        codec.oneOfs.add(
            OneOfSlot.of(
                oneOf,
                codec.struct.fields().indexOf(columnField),
                columnField.type(),
                path + oneOf.getName() + ".",
                enclosing));
      }
    }
    return codec;
  }

  private Types.NestedField columnField(String name, String path) {
    Types.NestedField field = struct.field(name);
    if (field == null) {
      throw new IllegalArgumentException("column type has no field " + path + name);
    }
    return field;
  }

  /** The codec of one value of a field (an element or map value when it is repeated). */
  static ValueCodec valueCodec(
      FieldDescriptor field, Type column, String name, Deque<Descriptor> enclosing) {
    switch (field.getJavaType()) {
      case ENUM:
        return ScalarCodecs.enumCodec(field.getEnumType(), column, name);
      case MESSAGE:
        Descriptor message = field.getMessageType();
        if (message.getFullName().equals(ProtoTypes.TIMESTAMP)) {
          return ScalarCodecs.timestamp(message, column, name);
        }
        if (ProtoTypes.wrapper(message)) {
          return ScalarCodecs.wrapper(message, column, name);
        }
        if (ProtoTypes.recursive(message, enclosing)) {
          return ScalarCodecs.recursive(message, column, name);
        }
        enclosing.push(message);
        MessageCodec codec = bind(message, column, name + ".", enclosing);
        enclosing.pop();
        return codec;
      default:
        return ScalarCodecs.of(field.getType(), column, name);
    }
  }

  @Override
  public Record toColumn(Object proto) throws UndecodablePayloadException {
    DynamicMessage message = (DynamicMessage) proto;
    Record record = template.copy();
    for (Slot slot : slots) {
      record.set(slot.position, slot.toColumn(message));
    }
    for (OneOfSlot oneOf : oneOfs) {
      record.set(oneOf.position, oneOf.toColumn(message));
    }
    return record;
  }

  @Override
  public DynamicMessage toProto(Object value) {
    Record record = (Record) value;
    DynamicMessage.Builder message = DynamicMessage.newBuilder(type);
    for (Slot slot : slots) {
      Object fieldValue = record.get(slot.position);
      if (fieldValue != null) {
        slot.toProto(fieldValue, message);
      }
    }
    for (OneOfSlot oneOf : oneOfs) {
      Object fieldValue = record.get(oneOf.position);
      if (fieldValue != null) {
        oneOf.toProto((Record) fieldValue, message);
      }
    }
    return message.buildPartial();
  }

  /** A field that is not a member of a (real) oneof. */
  private record Slot(
      FieldDescriptor field,
      int position,
      ValueCodec codec,
      ValueCodec mapValue,
      Mode mode,
      FieldDescriptor mapKeyField,
      FieldDescriptor mapValueField) {

    enum Mode {
      PRESENCE,
      IMPLICIT,
      LIST,
      MAP
    }

    static Slot of(
        FieldDescriptor field,
        int position,
        Type column,
        String path,
        Deque<Descriptor> enclosing) {
      String name = path + field.getName();
      if (field.isMapField()) {
        if (!column.isMapType()) {
          throw ScalarCodecs.mismatch(name, column, "map");
        }
        Types.MapType map = column.asMapType();
        Descriptor entry = field.getMessageType();
        return new Slot(
            field,
            position,
            valueCodec(entry.findFieldByNumber(1), map.keyType(), name + ".key", enclosing),
            valueCodec(entry.findFieldByNumber(2), map.valueType(), name + ".value", enclosing),
            Mode.MAP,
            entry.findFieldByNumber(1),
            entry.findFieldByNumber(2));
      }
      if (field.isRepeated()) {
        if (!column.isListType()) {
          throw ScalarCodecs.mismatch(name, column, "list");
        }
        Type element = column.asListType().elementType();
        return new Slot(
            field,
            position,
            valueCodec(field, element, name, enclosing),
            null,
            Mode.LIST,
            null,
            null);
      }
      Mode mode = field.hasPresence() ? Mode.PRESENCE : Mode.IMPLICIT;
      ValueCodec codec = valueCodec(field, column, name, enclosing);
      return new Slot(field, position, codec, null, mode, null, null);
    }

    Object toColumn(DynamicMessage message) throws UndecodablePayloadException {
      switch (mode) {
        case PRESENCE:
          return message.hasField(field) ? codec.toColumn(message.getField(field)) : null;
        case IMPLICIT:
          return codec.toColumn(message.getField(field));
        case LIST:
          int count = message.getRepeatedFieldCount(field);
          List<Object> list = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            list.add(codec.toColumn(message.getRepeatedField(field, i)));
          }
          return list;
        default:
          return mapToColumn(message);
      }
    }

    private Map<Object, Object> mapToColumn(DynamicMessage message)
        throws UndecodablePayloadException {
      int count = message.getRepeatedFieldCount(field);
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int i = 0; i < count; i++) {
        DynamicMessage entry = (DynamicMessage) message.getRepeatedField(field, i);
        map.put(
            codec.toColumn(entry.getField(mapKeyField)),
            mapValue.toColumn(entry.getField(mapValueField)));
      }
      return map;
    }

    void toProto(Object value, DynamicMessage.Builder message) {
      switch (mode) {
        case PRESENCE:
          message.setField(field, codec.toProto(value));
          break;
        case IMPLICIT:
          Object proto = codec.toProto(value);
          if (!proto.equals(field.getDefaultValue())) {
            message.setField(field, proto);
          }
          break;
        case LIST:
          for (Object element : (List<?>) value) {
            message.addRepeatedField(field, codec.toProto(element));
          }
          break;
        default:
          mapToProto((Map<?, ?>) value, message);
      }
    }

    private void mapToProto(Map<?, ?> map, DynamicMessage.Builder message) {
      Descriptor entryType = field.getMessageType();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        DynamicMessage.Builder proto = DynamicMessage.newBuilder(entryType);
        proto.setField(mapKeyField, codec.toProto(entry.getKey()));
        if (entry.getValue() != null) {
          proto.setField(mapValueField, mapValue.toProto(entry.getValue()));
        }
        message.addRepeatedField(field, proto.build());
      }
    }
  }

  /** A oneof: a struct with one field per member, at most one of them set. */
  private record OneOfSlot(
      OneofDescriptor oneOf,
      int position,
      GenericRecord template,
      FieldDescriptor[] members,
      int[] positions,
      ValueCodec[] codecs) {

    static OneOfSlot of(
        OneofDescriptor oneOf,
        int position,
        Type column,
        String path,
        Deque<Descriptor> enclosing) {
      if (!column.isStructType()) {
        throw ScalarCodecs.mismatch(path, column, "oneof " + oneOf.getName());
      }
      Types.StructType struct = column.asStructType();
      int size = oneOf.getFieldCount();
      FieldDescriptor[] members = new FieldDescriptor[size];
      int[] positions = new int[size];
      ValueCodec[] codecs = new ValueCodec[size];
      for (int i = 0; i < size; i++) {
        members[i] = oneOf.getField(i);
        Types.NestedField columnField = struct.field(members[i].getName());
        if (columnField == null) {
          throw new IllegalArgumentException(
              "column type has no field " + path + members[i].getName());
        }
        positions[i] = struct.fields().indexOf(columnField);
        codecs[i] =
            valueCodec(members[i], columnField.type(), path + members[i].getName(), enclosing);
      }
      return new OneOfSlot(
          oneOf, position, GenericRecord.create(struct), members, positions, codecs);
    }

    Record toColumn(DynamicMessage message) throws UndecodablePayloadException {
      FieldDescriptor set = message.getOneofFieldDescriptor(oneOf);
      if (set == null) {
        return null;
      }
      Record record = template.copy();
      for (int i = 0; i < members.length; i++) {
        if (members[i] == set) {
          record.set(positions[i], codecs[i].toColumn(message.getField(set)));
        }
      }
      return record;
    }

    void toProto(Record record, DynamicMessage.Builder message) {
      for (int i = 0; i < members.length; i++) {
        Object value = record.get(positions[i]);
        if (value != null) {
          message.setField(members[i], codecs[i].toProto(value));
        }
      }
    }
  }
}
