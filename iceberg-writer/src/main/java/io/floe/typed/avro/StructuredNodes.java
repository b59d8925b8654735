package io.floe.typed.avro;

import io.floe.typed.UndecodablePayloadException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;

/** Nodes of records, unions, arrays, maps and recursive references. */
final class StructuredNodes {
  private StructuredNodes() {}

  /**
   * A record as a struct. {@code positions[i]} is where Avro field {@code i} goes in the column's
   * struct (-1 for a null field, which has no column); the column may have more fields.
   */
  static final class RecordNode extends AvroNode {
    private final GenericRecord template;
    private final AvroNode[] fields;
    private final int[] positions;

    RecordNode(GenericRecord template, AvroNode[] fields, int[] positions) {
      this.template = template;
      this.fields = fields;
      this.positions = positions;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      // A copy of an empty record skips the struct-to-names lookup create() does
      GenericRecord record = template.copy();
      for (int i = 0; i < fields.length; i++) {
        Object value = fields[i].read(in);
        if (positions[i] >= 0) {
          record.set(positions[i], value);
        }
      }
      return record;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof StructLike struct)) {
        throw notAValue(value, "a record");
      }
      for (int i = 0; i < fields.length; i++) {
        fields[i].write(positions[i] >= 0 ? struct.get(positions[i], Object.class) : null, out);
      }
    }

    @Override
    int minBytes() {
      int sum = 0;
      for (AvroNode field : fields) {
        sum += field.minBytes();
      }
      return sum;
    }
  }

  /** A union of null and one other type, in either order. */
  static final class OptionalNode extends AvroNode {
    private final int valueBranch;
    private final AvroNode value;

    OptionalNode(int valueBranch, AvroNode value) {
      this.valueBranch = valueBranch;
      this.value = value;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return in.unionIndex(2) == valueBranch ? value.read(in) : null;
    }

    @Override
    void write(Object item, BinaryOutput out) {
      if (item == null) {
        out.writeLong(1 - valueBranch);
      } else {
        out.writeLong(valueBranch);
        value.write(item, out);
      }
    }
  }

  /**
   * Any other union, as a struct with one field per branch that is not null: the value sets the
   * field of its branch. {@code positions[i]} is branch {@code i}'s field, -1 for the null branch.
   */
  static final class BranchesNode extends AvroNode {
    private final GenericRecord template;
    private final AvroNode[] branches;
    private final int[] positions;

    BranchesNode(GenericRecord template, AvroNode[] branches, int[] positions) {
      this.template = template;
      this.branches = branches;
      this.positions = positions;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int branch = in.unionIndex(branches.length);
      if (positions[branch] < 0) {
        return null;
      }
      GenericRecord record = template.copy();
      record.set(positions[branch], branches[branch].read(in));
      return record;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (value == null) {
        writeNull(out);
        return;
      }
      if (!(value instanceof StructLike struct)) {
        throw notAValue(value, "a union");
      }
      for (int i = 0; i < branches.length; i++) {
        Object item = positions[i] >= 0 ? struct.get(positions[i], Object.class) : null;
        if (item != null) {
          out.writeLong(i);
          branches[i].write(item, out);
          return;
        }
      }
      writeNull(out);
    }

    private void writeNull(BinaryOutput out) {
      for (int i = 0; i < branches.length; i++) {
        if (positions[i] < 0) {
          out.writeLong(i);
          return;
        }
      }
      throw new IllegalArgumentException("a union without null needs one branch set");
    }
  }

  /** An array as a list, written as one block then the end. */
  static final class ArrayNode extends AvroNode {
    private final AvroNode element;

    ArrayNode(AvroNode element) {
      this.element = element;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int minBytes = element.minBytes();
      long count = in.readBlockCount(minBytes);
      List<Object> list = new ArrayList<>((int) Math.min(count, 1024));
      while (count > 0) {
        for (long i = 0; i < count; i++) {
          list.add(element.read(in));
        }
        count = in.readBlockCount(minBytes);
      }
      return list;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof List<?> list)) {
        throw notAValue(value, "an array");
      }
      if (!list.isEmpty()) {
        out.writeLong(list.size());
        for (Object item : list) {
          element.write(item, out);
        }
      }
      out.writeLong(0);
    }
  }

  /** A map in encounter order; of a duplicate key the last value stays, at the first place. */
  static final class MapNode extends AvroNode {
    private final AvroNode value;

    MapNode(AvroNode value) {
      this.value = value;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int minBytes = 1 + value.minBytes();
      long count = in.readBlockCount(minBytes);
      Map<String, Object> map = new LinkedHashMap<>();
      while (count > 0) {
        for (long i = 0; i < count; i++) {
          String key = in.readString().toString();
          map.put(key, value.read(in));
        }
        count = in.readBlockCount(minBytes);
      }
      return map;
    }

    @Override
    void write(Object item, BinaryOutput out) {
      if (!(item instanceof Map<?, ?> map)) {
        throw notAValue(item, "a map");
      }
      if (!map.isEmpty()) {
        out.writeLong(map.size());
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (!(entry.getKey() instanceof CharSequence key)) {
            throw notAValue(entry.getKey(), "a map key");
          }
          out.writeString(key);
          value.write(entry.getValue(), out);
        }
      }
      out.writeLong(0);
    }
  }

  /**
   * A reference to a record that contains it: the subtree is checked against its schema and kept as
   * its own bytes (binary), which are written back as they are.
   */
  static final class SubtreeNode extends AvroNode {
    private final Schema schema;

    SubtreeNode(Schema schema) {
      this.schema = schema;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int start = in.position();
      AvroSkipper.skip(schema, in);
      return ByteBuffer.wrap(in.copyFrom(start));
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (value instanceof ByteBuffer buffer) {
        out.writeRaw(buffer);
      } else if (value instanceof byte[] bytes) {
        out.writeRaw(bytes);
      } else {
        throw notAValue(value, "the bytes of " + schema.getFullName());
      }
    }

    @Override
    int minBytes() {
      return 0;
    }
  }
}
