package io.floe.typed.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;

/** Reads one JSON value from a parser into the value of a {@link BoundType}. */
final class JsonValueReader {

  private final JsonParser in;
  private final byte[] source;

  /** Where the parser's byte offsets start in {@link #source}. */
  private final int base;

  JsonValueReader(JsonParser in, byte[] source, int base) {
    this.in = in;
    this.source = source;
    this.base = base;
  }

  /** A value that does not fit its schema type: where (schema names only) and why. */
  static final class Mismatch extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Deque<String> path = new ArrayDeque<>();

    Mismatch(String reason) {
      super(reason, null, false, false);
    }

    Mismatch at(String step) {
      path.addFirst(step);
      return this;
    }

    String describe() {
      return "at /" + String.join("/", path) + ": " + getMessage();
    }
  }

  /** The value of the parser's current token (and what it opens), which is left on its end. */
  Object read(BoundType type) throws IOException {
    JsonToken token = in.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    switch (type.kind) {
      case STRUCT:
        return struct(type);
      case MAP:
        return map(type);
      case LIST:
        return list(type);
      case STRING:
        return string("a string");
      case DATE:
        return date();
      case TIMESTAMP:
        return dateTime();
      case LONG:
        return integer(token);
      case DOUBLE:
        return number(token);
      case BOOLEAN:
        expect(token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE, "a boolean", token);
        return token == JsonToken.VALUE_TRUE;
      default:
        return text();
    }
  }

  private Record struct(BoundType type) throws IOException {
    expect(in.currentToken() == JsonToken.START_OBJECT, "an object", in.currentToken());
    Record record = type.template.copy();
    int next = 0;
    while (in.nextToken() == JsonToken.FIELD_NAME) {
      int field = field(type, in.currentName(), next);
      in.nextToken();
      if (field < 0) {
        in.skipChildren();
        continue;
      }
      next = field + 1;
      try {
        record.set(type.positions[field], read(type.fields[field]));
      } catch (Mismatch e) {
        throw e.at(type.names[field].getValue());
      }
    }
    return record;
  }

  /** The index of property {@code name} in {@code type}, -1 if none; tries {@code next} first. */
  private static int field(BoundType type, String name, int next) {
    if (next < type.names.length && name.equals(type.names[next].getValue())) {
      return next;
    }
    Integer field = type.index.get(name);
    return field == null ? -1 : field;
  }

  private Map<String, Object> map(BoundType type) throws IOException {
    expect(in.currentToken() == JsonToken.START_OBJECT, "an object", in.currentToken());
    Map<String, Object> map = new LinkedHashMap<>();
    while (in.nextToken() == JsonToken.FIELD_NAME) {
      String key = storable(in.currentName());
      in.nextToken();
      try {
        map.put(key, read(type.element));
      } catch (Mismatch e) {
        throw e.at("*");
      }
    }
    return map;
  }

  private List<Object> list(BoundType type) throws IOException {
    expect(in.currentToken() == JsonToken.START_ARRAY, "an array", in.currentToken());
    List<Object> list = new ArrayList<>();
    while (in.nextToken() != JsonToken.END_ARRAY) {
      try {
        list.add(read(type.element));
      } catch (Mismatch e) {
        throw e.at(Integer.toString(list.size()));
      }
    }
    return list;
  }

  private String string(String expected) throws IOException {
    expect(in.currentToken() == JsonToken.VALUE_STRING, expected, in.currentToken());
    return storable(in.getText());
  }

  private LocalDate date() throws IOException {
    LocalDate date = JsonDateTimes.date(string("a date string"));
    if (date == null) {
      throw new Mismatch("a string that is not a date (yyyy-mm-dd) where format date is declared");
    }
    return date;
  }

  private OffsetDateTime dateTime() throws IOException {
    OffsetDateTime dateTime = JsonDateTimes.dateTime(string("a date-time string"));
    if (dateTime == null) {
      throw new Mismatch(
          "a string that is not an RFC 3339 date-time (years 0-9999) where format date-time is"
              + " declared");
    }
    return dateTime;
  }

  private Long integer(JsonToken token) throws IOException {
    if (token == JsonToken.VALUE_NUMBER_INT) {
      if (in.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
        throw new Mismatch("an integer beyond the range of long");
      }
      return in.getLongValue();
    }
    expect(token == JsonToken.VALUE_NUMBER_FLOAT, "an integer", token);
    BigDecimal value;
    try {
      value = new BigDecimal(in.getText());
    } catch (NumberFormatException | ArithmeticException e) {
      throw new Mismatch("a number beyond the range of long");
    }
    if (value.signum() == 0) {
      return 0L;
    }
    if (value.precision() - value.scale() > 19) {
      throw new Mismatch("an integer beyond the range of long");
    }
    if (value.stripTrailingZeros().scale() > 0) {
      throw new Mismatch("a number with a fraction where an integer is declared");
    }
    try {
      return value.longValueExact();
    } catch (ArithmeticException e) {
      throw new Mismatch("an integer beyond the range of long");
    }
  }

  private Double number(JsonToken token) throws IOException {
    expect(
        token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT,
        "a number",
        token);
    double value = Double.parseDouble(in.getText());
    if (Double.isInfinite(value)) {
      throw new Mismatch("a number beyond the range of double");
    }
    return value;
  }

  /** The value's JSON text exactly as the payload has it. */
  private String text() throws IOException {
    int start = (int) in.currentTokenLocation().getByteOffset();
    if (in.currentToken().isStructStart()) {
      in.skipChildren();
    } else {
      in.finishToken();
    }
    int end = (int) in.currentLocation().getByteOffset();
    // a number at the root is read with the whitespace after it; a value never ends in whitespace
    while (end > start && isWhitespace(source[base + end - 1])) {
      end--;
    }
    return new String(source, base + start, end - start, StandardCharsets.UTF_8);
  }

  private static boolean isWhitespace(byte b) {
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
  }

  /**
   * The string as the table stores it: UTF-8 has no unpaired surrogates ({@code \ud800} escapes),
   * so they become what Java's UTF-8 encoder writes for them.
   */
  private static String storable(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
      }
    }
    return text;
  }

  private static void expect(boolean holds, String expected, JsonToken found) {
    if (!holds) {
      throw new Mismatch("expected " + expected + ", found " + describe(found));
    }
  }

  private static String describe(JsonToken token) {
    switch (token) {
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      case VALUE_STRING:
        return "a string";
      case VALUE_NUMBER_INT:
        return "an integer";
      case VALUE_NUMBER_FLOAT:
        return "a number with a fraction or exponent";
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "a boolean";
      default:
        return token.name();
    }
  }
}
