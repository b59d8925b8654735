package io.floe.typed.avro;

import io.floe.typed.UndecodablePayloadException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.iceberg.util.DateTimeUtil;

/** Nodes of the Avro logical types Iceberg has a type for. */
final class LogicalNodes {
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private LogicalNodes() {}

  /**
   * A decimal on bytes ({@code fixedSize} -1) or on a fixed. Bytes are written minimal (a padded
   * payload re-encodes differently); a value with more digits than the column's precision cannot be
   * stored, so it is undecodable.
   */
  static final class DecimalNode extends AvroNode {
    private final int precision;
    private final int scale;
    private final int fixedSize;

    DecimalNode(int precision, int scale, int fixedSize) {
      this.precision = precision;
      this.scale = scale;
      this.fixedSize = fixedSize;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      int length = fixedSize >= 0 ? fixedSize : in.readLength("a decimal");
      byte[] bytes = in.readBytes(length, "a decimal");
      BigInteger unscaled = length == 0 ? BigInteger.ZERO : new BigInteger(bytes);
      BigDecimal value = new BigDecimal(unscaled, scale);
      if (value.precision() > precision) {
        throw new UndecodablePayloadException(
            "decimal of " + value.precision() + " digits exceeds precision " + precision);
      }
      return value;
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof BigDecimal decimal)) {
        throw notAValue(value, "decimal");
      }
      byte[] bytes =
          decimal.setScale(scale, RoundingMode.UNNECESSARY).unscaledValue().toByteArray();
      if (fixedSize < 0) {
        out.writeBytes(bytes);
        return;
      }
      if (bytes.length > fixedSize) {
        throw new IllegalArgumentException(decimal + " does not fit fixed(" + fixedSize + ")");
      }
      int pad = bytes[0] < 0 ? 0xff : 0;
      for (int i = bytes.length; i < fixedSize; i++) {
        out.writeByte(pad);
      }
      out.writeRaw(bytes);
    }

    @Override
    int minBytes() {
      return Math.max(fixedSize, 1);
    }
  }

  static final class DateNode extends AvroNode {
    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      return DateTimeUtil.dateFromDays(in.readInt());
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof LocalDate date)) {
        throw notAValue(value, "date");
      }
      out.writeLong(DateTimeUtil.daysFromDate(date));
    }
  }

  /** A time of day in milliseconds (an int) or microseconds (a long). */
  static final class TimeNode extends AvroNode {
    private final boolean millis;

    TimeNode(boolean millis) {
      this.millis = millis;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      long micros = millis ? in.readInt() * 1000L : in.readLong();
      if (micros < 0 || micros >= MICROS_PER_DAY) {
        throw new UndecodablePayloadException(
            "time of day out of range: " + micros + " microseconds");
      }
      return DateTimeUtil.timeFromMicros(micros);
    }

    @Override
    void write(Object value, BinaryOutput out) {
      if (!(value instanceof LocalTime time)) {
        throw notAValue(value, "time");
      }
      long micros = DateTimeUtil.microsFromTime(time);
      out.writeLong(millis ? micros / 1000 : micros);
    }
  }

  /** A timestamp in a unit Avro has; Iceberg keeps microseconds. */
  static final class TimestampNode extends AvroNode {
    private static final long MICROS_PER_SECOND = 1_000_000L;

    enum Unit {
      MILLIS,
      MICROS,
      NANOS
    }

    private final Unit unit;
    private final boolean zoned;

    TimestampNode(Unit unit, boolean zoned) {
      this.unit = unit;
      this.zoned = zoned;
    }

    @Override
    Object read(BinaryInput in) throws UndecodablePayloadException {
      long micros = toMicros(in.readLong());
      // as DateTimeUtil has it, without its calendar arithmetic (a few times dearer)
      long seconds = Math.floorDiv(micros, MICROS_PER_SECOND);
      int nanos = (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1000;
      return zoned
          ? Instant.ofEpochSecond(seconds, nanos).atOffset(ZoneOffset.UTC)
          : LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
    }

    private long toMicros(long value) throws UndecodablePayloadException {
      switch (unit) {
        case MILLIS:
          if (value > Long.MAX_VALUE / 1000 || value < Long.MIN_VALUE / 1000) {
            throw new UndecodablePayloadException(
                "timestamp of " + value + " ms is out of the range of microseconds");
          }
          return value * 1000;
        case NANOS:
          // Not a whole microsecond: stored truncated, so it re-encodes differently
          long micros = Math.floorDiv(value, 1000L);
          if (micros < Long.MIN_VALUE / 1000) {
            throw new UndecodablePayloadException(
                "timestamp of " + value + " ns has no microseconds that re-encode in nanoseconds");
          }
          return micros;
        default:
          return value;
      }
    }

    /** Whole microseconds (values hold no finer part), as DateTimeUtil has it. */
    private static long micros(long epochSecond, int nano) {
      return Math.addExact(Math.multiplyExact(epochSecond, MICROS_PER_SECOND), nano / 1000);
    }

    @Override
    void write(Object value, BinaryOutput out) {
      long micros;
      if (zoned && value instanceof OffsetDateTime timestamp) {
        micros = micros(timestamp.toEpochSecond(), timestamp.getNano());
      } else if (!zoned && value instanceof LocalDateTime timestamp) {
        micros = micros(timestamp.toEpochSecond(ZoneOffset.UTC), timestamp.getNano());
      } else {
        throw notAValue(value, zoned ? "timestamptz" : "timestamp");
      }
      out.writeLong(
          switch (unit) {
            case MILLIS -> Math.floorDiv(micros, 1000L);
            case NANOS -> Math.multiplyExact(micros, 1000L);
            default -> micros;
          });
    }
  }
}
