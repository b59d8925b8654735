package io.floe.typed.avro;

import io.floe.typed.UndecodablePayloadException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Nodes of Avro's primitive types, enums and fixed. */
final class ScalarNodes {
  private ScalarNodes() {}

  /** A record field of type null: nothing on the wire, no column. */
  static final class NullNode extends AvroNode {
    @Override
    Object read(BinaryInput in) {
      return null;
    }

    @Override
    void write(Object value, BinaryOutput out) {}

    @Override
    int minBytes() {
      return 0;
    }
  }

  static final class BooleanNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return in.readBoolean();
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof Boolean bool)) {
        throw notAValue(value, "boolean");
      }
      out.writeBoolean(bool);
    }
  }

  /** An int, in an int column or one promoted to long. */
  static final class IntNode extends AvroNode {
    private final boolean asLong;

    IntNode(boolean asLong) {
      this.asLong = asLong;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int value = in.readInt();
      // Not a conditional expression: it would unbox both and box a Long
      if (asLong) {
        return (long) value;
      }
      return value;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof Integer || value instanceof Long)) {
        throw notAValue(value, "int");
      }
      long n = ((Number) value).longValue();
      if (n != (int) n) {
        throw new IllegalArgumentException(n + " is out of the range of an Avro int");
      }
      out.writeLong(n);
    }
  }

  static final class LongNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return in.readLong();
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof Long n)) {
        throw notAValue(value, "long");
      }
      out.writeLong(n);
    }
  }

  /** A float, in a float column or one promoted to double; NaN payloads become Java's NaN. */
  static final class FloatNode extends AvroNode {
    private final boolean asDouble;

    FloatNode(boolean asDouble) {
      this.asDouble = asDouble;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      float value = Float.intBitsToFloat(in.readFixedInt());
      if (Float.isNaN(value)) {
        value = Float.NaN;
      }
      if (asDouble) {
        return (double) value;
      }
      return value;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof Float || value instanceof Double)) {
        throw notAValue(value, "float");
      }
      out.writeFixedInt(Float.floatToIntBits(((Number) value).floatValue()));
    }

    @Override
    int minBytes() {
      return 4;
    }
  }

  static final class DoubleNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      double value = Double.longBitsToDouble(in.readFixedLong());
      return Double.isNaN(value) ? Double.NaN : value;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof Double d)) {
        throw notAValue(value, "double");
      }
      out.writeFixedLong(Double.doubleToLongBits(d));
    }

    @Override
    int minBytes() {
      return 8;
    }
  }

  static final class StringNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return in.readString();
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof CharSequence chars)) {
        throw notAValue(value, "string");
      }
      out.writeString(chars);
    }
  }

  static final class BytesNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return ByteBuffer.wrap(in.readBytes(in.readLength("bytes"), "bytes"));
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (value instanceof ByteBuffer buffer) {
        out.writeBytes(buffer);
      } else if (value instanceof byte[] bytes) {
        out.writeBytes(bytes);
      } else {
        throw notAValue(value, "bytes");
      }
    }
  }

  static final class FixedNode extends AvroNode {
    private final int size;

    FixedNode(int size) {
      this.size = size;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return in.readBytes(size, "a fixed(" + size + ")");
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (value instanceof byte[] bytes && bytes.length == size) {
        out.writeRaw(bytes);
      } else if (value instanceof ByteBuffer buffer && buffer.remaining() == size) {
        out.writeRaw(buffer);
      } else {
        throw notAValue(value, "fixed(" + size + ")");
      }
    }

    @Override
    int minBytes() {
      return size;
    }
  }

  /** An enum as its symbol. */
  static final class EnumNode extends AvroNode {
    private final String[] symbols;
    private final Map<String, Integer> indexes = new HashMap<>();

    EnumNode(List<String> symbols) {
      this.symbols = symbols.toArray(new String[0]);
      for (int i = 0; i < this.symbols.length; i++) {
        indexes.put(this.symbols[i], i);
      }
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int index = in.readInt();
      if (index < 0 || index >= symbols.length) {
        throw new UndecodablePayloadException(
            "enum index " + index + " is not one of " + symbols.length + " symbols");
      }
      return symbols[index];
    }

    @Override
    void write(Object value, BinaryOutput out) {
      Integer index = value instanceof CharSequence chars ? indexes.get(chars.toString()) : null;
      if (index == null) {
        throw notAValue(value, "an enum of symbols " + String.join(", ", symbols));
      }
      out.writeLong(index);
    }
  }
}
