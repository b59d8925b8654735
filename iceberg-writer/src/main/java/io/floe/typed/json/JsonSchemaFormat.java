package io.floe.typed.json;

import io.floe.typed.InvalidSchemaException;
import io.floe.typed.SchemaFormat;
import io.floe.typed.WriterSchema;
import java.util.List;
import java.util.Map;

/**
 * JSON Schema (draft-07 and 2020-12 keywords): payloads are UTF-8 JSON text.
 *
 * <p>Types, every field optional, field ids depth first from 1:
 *
 * <table>
 *   <caption>JSON Schema to Iceberg</caption>
 *   <tr><th>JSON Schema</th><th>Iceberg</th></tr>
 *   <tr><td>{@code object} with non-empty {@code properties}</td>
 *       <td>struct, fields in property order; undeclared properties are dropped</td></tr>
 *   <tr><td>{@code object} without properties, {@code additionalProperties: <schema>}</td>
 *       <td>map&lt;string, V&gt; in payload order (a duplicate key keeps its first place and
 *       its last value)</td></tr>
 *   <tr><td>{@code array} with {@code items: <schema>}</td><td>list (optional elements)</td></tr>
 *   <tr><td>{@code string}, {@code enum} of strings</td><td>string</td></tr>
 *   <tr><td>{@code string} with {@code format: date}</td><td>date</td></tr>
 *   <tr><td>{@code string} with {@code format: date-time}</td>
 *       <td>timestamptz (microseconds; see {@link JsonDateTimes})</td></tr>
 *   <tr><td>{@code integer}</td><td>long</td></tr>
 *   <tr><td>{@code number}</td><td>double</td></tr>
 *   <tr><td>{@code boolean}</td><td>boolean</td></tr>
 *   <tr><td>{@code type: [T, "null"]}, {@code anyOf}/{@code oneOf} of T and {@code
 *       {"type": "null"}}</td><td>T</td></tr>
 *   <tr><td>{@code $ref} to {@code #/definitions/..}, {@code #/$defs/..} (any JSON pointer), a
 *       reference name (with or without a pointer)</td><td>the type it points at</td></tr>
 *   <tr><td>anything else: other {@code anyOf}/{@code oneOf}, {@code allOf}, {@code if}, {@code
 *       const}, no {@code type}, mixed types, {@code type: null}, tuples, a recursive {@code $ref},
 *       an object with neither properties nor a schema for additional ones</td>
 *       <td>string: the value's JSON text exactly as the payload wrote it</td></tr>
 * </table>
 *
 * <p>Decoding is lenient on nulls (an explicit {@code null} of any type is null) and strict on
 * types: a value of another JSON type, a fraction or a number beyond long for {@code integer} (a
 * whole number written {@code 1.0} or {@code 1E5} is an integer and decodes), a number beyond
 * double, a string that is not a date or date-time where the format is declared, or text that is
 * not one JSON value is undecodable.
 *
 * <p>Encoding is one canonical form, the compact text of Jackson's default {@code ObjectMapper}
 * (written as a String, then UTF-8) and JavaScript's {@code JSON.stringify}: no whitespace; struct
 * properties in schema order, a null field left out (so {@code "a":null} re-encodes differently and
 * keeps its bytes); null list elements and map values as {@code null}; strings with Jackson's
 * default escapes ({@code \"}, {@code \\}, {@code \b \t \n \f \r}, other control characters as
 * {@code \u005Cu001F} with upper-case hex, everything else as UTF-8, characters beyond U+FFFF
 * included); longs as Java prints them; doubles as JavaScript prints them (see {@link JsNumbers}:
 * {@code 1}, {@code 1.5}, {@code 1e+21}, {@code 1e-7}); JSON text kept as written; a null root as
 * {@code null}.
 *
 * <p>A payload in any other form decodes to its value and re-encodes differently, so the record
 * keeps its bytes: spaces, escapes of non-ASCII or of HTML characters, {@code 1.10}, {@code 1E5},
 * {@code -0}, another property order, duplicate or undeclared properties, nulls in structs;
 * JavaScript's lower-case {@code \u005Cu001f}; Java's doubles with whole values or exponents
 * ({@code 1.0}, {@code 1.0E7}); Jackson's {@code writeValueAsBytes}, which escapes characters
 * beyond U+FFFF as surrogate pairs; date-times not in UTC, or not with exactly 3 (or, for values
 * with microseconds, 6) fraction digits.
 */
public final class JsonSchemaFormat implements SchemaFormat {

  @Override
  public WriterSchema writerSchema(
      String text, Map<String, String> references, List<Integer> messageIndexes)
      throws InvalidSchemaException {
    if (!messageIndexes.isEmpty()) {
      throw new InvalidSchemaException("JSON Schema payloads have no message indexes");
    }
    return new JsonWriterSchema(new JsonSchemaReader(references).read(text));
  }
}
