package io.floe.typed.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import io.floe.typed.UndecodablePayloadException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** The codecs of values that are not structs: scalars, enums and the well-known messages. */
final class ScalarCodecs {

  private static final BigInteger UNSIGNED_OFFSET = BigInteger.ONE.shiftLeft(64);

  /** Instants whose microseconds since the epoch fit a long (Iceberg's timestamptz). */
  private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000 - 1;

  private ScalarCodecs() {}

  static ValueCodec of(FieldDescriptor.Type type, Type column, String name) {
    Type.TypeID id = column.typeId();
    switch (type) {
      case INT32:
      case SINT32:
      case SFIXED32:
        if (id == Type.TypeID.LONG) {
          return codec(v -> ((Integer) v).longValue(), v -> ((Number) v).intValue());
        }
        return check(column, Type.TypeID.INTEGER, name, identity(v -> ((Number) v).intValue()));
      case UINT32:
      case FIXED32:
        return check(
            column,
            Type.TypeID.LONG,
            name,
            codec(v -> Integer.toUnsignedLong((Integer) v), v -> ((Number) v).intValue()));
      case INT64:
      case SINT64:
      case SFIXED64:
        return check(column, Type.TypeID.LONG, name, identity(v -> v));
      case UINT64:
      case FIXED64:
        return unsignedLong(column, name);
      default:
        return other(type, column, name);
    }
  }

  private static ValueCodec other(FieldDescriptor.Type type, Type column, String name) {
    switch (type) {
      case FLOAT:
        if (column.typeId() == Type.TypeID.DOUBLE) {
          return codec(v -> canonical((double) (Float) v), v -> ((Number) v).floatValue());
        }
        return check(
            column,
            Type.TypeID.FLOAT,
            name,
            codec(v -> canonical((Float) v), v -> ((Number) v).floatValue()));
      case DOUBLE:
        return check(column, Type.TypeID.DOUBLE, name, codec(v -> canonical((Double) v), v -> v));
      case BOOL:
      case STRING:
        Type.TypeID expected =
            type == FieldDescriptor.Type.BOOL ? Type.TypeID.BOOLEAN : Type.TypeID.STRING;
        return check(column, expected, name, identity(v -> v));
      case BYTES:
        return check(
            column,
            Type.TypeID.BINARY,
            name,
            codec(
                v -> ByteBuffer.wrap(((ByteString) v).toByteArray()),
                v -> ByteString.copyFrom(((ByteBuffer) v).duplicate())));
      default:
        throw new IllegalArgumentException("field " + name + ": no scalar codec for " + type);
    }
  }

  private static ValueCodec unsignedLong(Type column, String name) {
    if (column.typeId() != Type.TypeID.DECIMAL
        || ((Types.DecimalType) column).scale() != 0
        || ((Types.DecimalType) column).precision() < 20) {
      throw mismatch(name, column, "decimal(20, 0)");
    }
    return codec(
        v -> {
          long bits = (Long) v;
          BigInteger value = BigInteger.valueOf(bits);
          return new BigDecimal(bits < 0 ? value.add(UNSIGNED_OFFSET) : value);
        },
        v -> ((BigDecimal) v).toBigInteger().longValue());
  }

  /** An enum value as its name, or an unknown number of an open enum as its decimal number. */
  static ValueCodec enumCodec(EnumDescriptor type, Type column, String name) {
    return check(
        column,
        Type.TypeID.STRING,
        name,
        new ValueCodec() {
          @Override
          public Object toColumn(Object proto) {
            int number = ((EnumValueDescriptor) proto).getNumber();
            EnumValueDescriptor known = type.findValueByNumber(number);
            return known != null ? known.getName() : Integer.toString(number);
          }

          @Override
          public Object toProto(Object value) {
            String text = (String) value;
            EnumValueDescriptor known = type.findValueByName(text);
            return known != null
                ? known
                : type.findValueByNumberCreatingIfUnknown(Integer.parseInt(text));
          }
        });
  }

  /** google.protobuf.Timestamp as a timestamptz: nanos that are not whole micros are cut off. */
  static ValueCodec timestamp(Descriptor type, Type column, String name) {
    if (!column.equals(Types.TimestampType.withZone())) {
      throw mismatch(name, column, "timestamptz");
    }
    FieldDescriptor seconds = type.findFieldByNumber(1);
    FieldDescriptor nanos = type.findFieldByNumber(2);
    return new ValueCodec() {
      @Override
      public Object toColumn(Object proto) throws UndecodablePayloadException {
        DynamicMessage message = (DynamicMessage) proto;
        long secs = (Long) message.getField(seconds);
        int nano = (Integer) message.getField(nanos);
        if (Math.abs(secs) > MAX_SECONDS) {
          throw new UndecodablePayloadException(
              "Timestamp " + name + " out of range: " + secs + " seconds");
        }
        Instant instant = Instant.ofEpochSecond(secs, nano).truncatedTo(ChronoUnit.MICROS);
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
      }

      @Override
      public Object toProto(Object value) {
        OffsetDateTime time = (OffsetDateTime) value;
        DynamicMessage.Builder message = DynamicMessage.newBuilder(type);
        if (time.toEpochSecond() != 0) {
          message.setField(seconds, time.toEpochSecond());
        }
        if (time.getNano() != 0) {
          message.setField(nanos, time.getNano());
        }
        return message.build();
      }
    };
  }

  /** A wrapper (google.protobuf.Int32Value, ...) as the scalar it wraps. */
  static ValueCodec wrapper(Descriptor type, Type column, String name) {
    FieldDescriptor inner = type.findFieldByNumber(1);
    ValueCodec scalar = of(inner.getType(), column, name);
    return new ValueCodec() {
      @Override
      public Object toColumn(Object proto) throws UndecodablePayloadException {
        return scalar.toColumn(((DynamicMessage) proto).getField(inner));
      }

      @Override
      public Object toProto(Object value) {
        DynamicMessage.Builder message = DynamicMessage.newBuilder(type);
        Object proto = scalar.toProto(value);
        if (!proto.equals(inner.getDefaultValue())) {
          message.setField(inner, proto);
        }
        return message.build();
      }
    };
  }

  /** A message inside itself: its bytes, as protobuf-java serialises what it parsed. */
  static ValueCodec recursive(Descriptor type, Type column, String name) {
    return check(
        column,
        Type.TypeID.BINARY,
        name,
        new ValueCodec() {
          @Override
          public Object toColumn(Object proto) {
            return ByteBuffer.wrap(((DynamicMessage) proto).toByteArray());
          }

          @Override
          public Object toProto(Object value) {
            try {
              return DynamicMessage.parseFrom(
                  type, ByteString.copyFrom(((ByteBuffer) value).duplicate()));
            } catch (InvalidProtocolBufferException e) {
              throw new IllegalArgumentException(
                  "stored bytes of " + name + " are not a " + type.getFullName(), e);
            }
          }
        });
  }

  private static Object canonical(Float value) {
    return value.isNaN() ? Float.NaN : value;
  }

  private static Object canonical(Double value) {
    return value.isNaN() ? Double.NaN : value;
  }

  private interface Conversion {
    Object apply(Object value);
  }

  private static ValueCodec codec(Conversion toColumn, Conversion toProto) {
    return new ValueCodec() {
      @Override
      public Object toColumn(Object proto) {
        return toColumn.apply(proto);
      }

      @Override
      public Object toProto(Object value) {
        return toProto.apply(value);
      }
    };
  }

  private static ValueCodec identity(Conversion toProto) {
    return codec(v -> v, toProto);
  }

  private static ValueCodec check(
      Type column, Type.TypeID expected, String name, ValueCodec codec) {
    if (column.typeId() != expected) {
      throw mismatch(name, column, expected.toString().toLowerCase(Locale.ROOT));
    }
    return codec;
  }

  static IllegalArgumentException mismatch(String name, Type column, String expected) {
    return new IllegalArgumentException(
        "column type " + column + " of field " + name + " cannot hold " + expected);
  }
}
