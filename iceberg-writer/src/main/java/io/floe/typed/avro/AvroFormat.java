package io.floe.typed.avro;

import io.floe.typed.InvalidSchemaException;
import io.floe.typed.SchemaFormat;
import io.floe.typed.WriterSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.iceberg.types.Type;

/**
 * Avro schemas (JSON) and their binary payloads. An Avro schema becomes this Iceberg type:
 *
 * <table>
 *   <caption>Avro to Iceberg</caption>
 *   <tr><th>Avro</th><th>Iceberg</th><th>Value</th></tr>
 *   <tr><td>record</td><td>struct, every field optional</td><td>Record</td></tr>
 *   <tr><td>union of null and T (either order)</td><td>optional T</td><td>T's or null</td></tr>
 *   <tr><td>any other union</td><td>struct of an optional field per branch that is not null,
 *       named after the branch's type ({@code int}, {@code string}, {@code array}, {@code map})
 *       or a named type's simple name (its full name with {@code _} for dots when two
 *       clash); the value sets its branch's field, a null branch makes the whole value null</td>
 *       <td>Record</td></tr>
 *   <tr><td>null (a record field)</td><td>no column</td><td>-</td></tr>
 *   <tr><td>boolean, int, long, float, double</td><td>the same</td>
 *       <td>Boolean, Integer, Long, Float, Double</td></tr>
 *   <tr><td>string, uuid (on string)</td><td>string</td><td>String</td></tr>
 *   <tr><td>enum</td><td>string (the symbol)</td><td>String</td></tr>
 *   <tr><td>bytes</td><td>binary</td><td>ByteBuffer</td></tr>
 *   <tr><td>fixed(n)</td><td>fixed(n)</td><td>byte[]</td></tr>
 *   <tr><td>decimal(p, s) on bytes or fixed, p &le; 38</td><td>decimal(p, s)</td>
 *       <td>BigDecimal</td></tr>
 *   <tr><td>decimal(p, s), p &gt; 38</td><td>binary or fixed (the base type)</td>
 *       <td>ByteBuffer, byte[]</td></tr>
 *   <tr><td>date</td><td>date</td><td>LocalDate</td></tr>
 *   <tr><td>time-millis, time-micros</td><td>time</td><td>LocalTime</td></tr>
 *   <tr><td>timestamp-millis, -micros, -nanos</td><td>timestamptz (micros)</td>
 *       <td>OffsetDateTime, UTC</td></tr>
 *   <tr><td>local-timestamp-millis, -micros, -nanos</td><td>timestamp (micros)</td>
 *       <td>LocalDateTime</td></tr>
 *   <tr><td>array of T</td><td>list of optional T</td><td>List</td></tr>
 *   <tr><td>map of V</td><td>map of string to optional V</td><td>Map in encounter order</td></tr>
 *   <tr><td>a record inside itself (recursion)</td><td>binary: the Avro binary of that
 *       subtree</td><td>ByteBuffer</td></tr>
 * </table>
 *
 * <p>Field ids are numbered from 1 depth-first. Other logical types are their base type.
 *
 * <p>Decoding accepts every encoding the spec allows and normalises values as storage would (NaN
 * payloads, strings that are not UTF-8, duplicate map keys, nanoseconds that are not whole
 * microseconds, padded decimals), so those payloads re-encode to other bytes. A value storage
 * cannot hold (a decimal with more digits than its precision, a time of day out of range, a
 * millisecond timestamp beyond the microsecond range) makes the payload undecodable. Encoding is
 * canonical Avro binary: minimal varints, one block per non-empty array or map.
 */
public final class AvroFormat implements SchemaFormat {

  @Override
  public WriterSchema writerSchema(
      String text, Map<String, String> references, List<Integer> messageIndexes)
      throws InvalidSchemaException {
    if (!messageIndexes.isEmpty()) {
      throw new InvalidSchemaException("Avro payloads have no message indexes");
    }
    Schema schema = parse(text, references);
    Type type;
    try {
      type = AvroTypeMapper.icebergType(schema);
      NodeBuilder.bind(schema, type);
    } catch (IllegalArgumentException e) {
      throw new InvalidSchemaException("unsupported Avro schema: " + e.getMessage(), e);
    }
    return new AvroWriterSchema(schema, type);
  }

  /**
   * The schema, after the texts of the named types it references. A reference may need another one,
   * and the map has no order: each text is parsed once everything it needs has been.
   */
  private static Schema parse(String text, Map<String, String> references)
      throws InvalidSchemaException {
    List<String> ordered = new ArrayList<>();
    List<Map.Entry<String, String>> pending = new ArrayList<>(references.entrySet());
    while (!pending.isEmpty()) {
      Map.Entry<String, String> next = null;
      RuntimeException last = null;
      for (Map.Entry<String, String> reference : pending) {
        try {
          parser(ordered).parse(reference.getValue());
          next = reference;
          break;
        } catch (RuntimeException e) {
          last = e;
        }
      }
      if (next == null) {
        throw new InvalidSchemaException(
            "invalid Avro schema reference " + pending.get(0).getKey() + ": " + last.getMessage(),
            last);
      }
      ordered.add(next.getValue());
      pending.remove(next);
    }
    try {
      return parser(ordered).parse(text);
    } catch (RuntimeException e) {
      throw new InvalidSchemaException("invalid Avro schema: " + e.getMessage(), e);
    }
  }

  private static Schema.Parser parser(List<String> references) {
    // Payloads are read with the writer's schema, where defaults play no part
    Schema.Parser parser = new Schema.Parser().setValidateDefaults(false);
    for (String reference : references) {
      parser.parse(reference);
    }
    return parser;
  }
}
