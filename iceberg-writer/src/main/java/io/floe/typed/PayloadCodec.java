package io.floe.typed;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Payloads of one writer schema to values of one table column and back. Values are Iceberg's
 * generic data values ({@code Record}, {@code List}, {@code Map} in encounter order, {@code
 * ByteBuffer}, a {@code CharSequence} for a string ({@code String}, or Avro's {@code Utf8} over
 * well-formed UTF-8), {@code BigDecimal}, {@code LocalDate}, {@code OffsetDateTime}, ...).
 *
 * <p>The caller checks losslessness by comparing {@code encode(decode(payload))} with the payload,
 * so {@link #decode} must give the value exactly as the table will store and return it: a value
 * storage cannot keep as it is (a NaN with a payload, a string that is not valid UTF-8, a duplicate
 * map key) is normalised the way storage would normalise it, so that it re-encodes to other bytes
 * and the record keeps its original bytes beside its columns.
 */
public interface PayloadCodec {

  /**
   * The value of a payload (the bytes after the wire-format prefix).
   *
   * @throws UndecodablePayloadException if the bytes are not a valid payload of the writer schema
   */
  Object decode(ByteBuffer payload) throws UndecodablePayloadException;

  /**
   * The payload of a value {@link #decode} returned or the table read back, in the format's
   * canonical encoding (the same bytes for the same value, always).
   */
  byte[] encode(Object value);

  /**
   * How many forms of a payload this codec writes: form 0 is the canonical one ({@link
   * #encode(Object)}); the others are encodings other common writers use for the same value (JSON:
   * Java's numbers), tried in order when the canonical one gives other bytes.
   */
  default int forms() {
    return 1;
  }

  /** The payload of a value in writer form {@code form} ({@code 0}: {@link #encode(Object)}). */
  default byte[] encode(Object value, int form) {
    return encode(value);
  }

  /**
   * Whether {@link #encode(Object, int)} of {@code value} gives {@code bytes} from {@code from} to
   * {@code to}: the copy's lossless check, which a codec may do without building the whole payload.
   */
  default boolean encodesTo(Object value, int form, byte[] bytes, int from, int to) {
    byte[] encoded = encode(value, form);
    return Arrays.equals(encoded, 0, encoded.length, bytes, from, to);
  }
}
