package io.floe.typed.json;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;

/**
 * JSON payloads of one JSON Schema to values of one column and back; see {@link JsonSchemaFormat}
 * for the mapping and the canonical form {@link #encode} writes. Thread-safe.
 */
final class JsonPayloadCodec implements PayloadCodec {
  /** The writer form with Java's numbers ({@code 12.0}, {@code 1.0E7}), as Jackson writes them. */
  static final int JAVA_NUMBERS = 1;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          // characters beyond U+FFFF as UTF-8, as JavaScript and Jackson's String output write them
          .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
          .build();

  private final BoundType root;

  JsonPayloadCodec(BoundType root) {
    this.root = root;
  }

  @Override
  public Object decode(ByteBuffer payload) throws UndecodablePayloadException {
    byte[] bytes;
    int offset;
    int length = payload.remaining();
    if (payload.hasArray()) {
      bytes = payload.array();
      offset = payload.arrayOffset() + payload.position();
    } else {
      bytes = new byte[length];
      payload.duplicate().get(bytes);
      offset = 0;
    }
    try (JsonParser parser = FACTORY.createParser(bytes, offset, length)) {
      if (parser.nextToken() == null) {
        throw new UndecodablePayloadException("not JSON: no value");
      }
      Object value = new JsonValueReader(parser, bytes, offset).read(root);
      if (parser.nextToken() != null) {
        throw new UndecodablePayloadException("not JSON: more after the value");
      }
      return value;
    } catch (JsonValueReader.Mismatch e) {
      throw new UndecodablePayloadException(e.describe());
    } catch (StreamConstraintsException e) {
      throw new UndecodablePayloadException(
          "JSON beyond the parser's limits: " + e.getOriginalMessage());
    } catch (JsonParseException e) {
      // Jackson's message quotes the payload, so only where it failed is said
      long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
      throw new UndecodablePayloadException("not JSON (at byte " + at + ")");
    } catch (IOException e) {
      throw new UndecodablePayloadException("not JSON: " + e.getClass().getSimpleName());
    }
  }

  @Override
  public byte[] encode(Object value) {
    return encode(value, 0);
  }

  /** Two forms: JavaScript's numbers (canonical) and Java's ({@link #JAVA_NUMBERS}). */
  @Override
  public int forms() {
    return 2;
  }

  @Override
  public byte[] encode(Object value, int form) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator generator = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      write(root, value, generator, form == JAVA_NUMBERS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  @Override
  public boolean encodesTo(Object value, int form, byte[] bytes, int from, int to) {
    SameBytes out = new SameBytes(bytes, from, to);
    try (JsonGenerator generator = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      write(root, value, generator, form == JAVA_NUMBERS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.same();
  }

  /** Compares what is written with a range of bytes, keeping none of it. */
  private static final class SameBytes extends OutputStream {
    private final byte[] expected;
    private final int to;
    private int at;
    private boolean same = true;

    SameBytes(byte[] expected, int from, int to) {
      this.expected = expected;
      this.at = from;
      this.to = to;
    }

    @Override
    public void write(int b) {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      if (same) {
        same = len <= to - at && Arrays.equals(b, off, off + len, expected, at, at + len);
        at += len;
      }
    }

    boolean same() {
      return same && at == to;
    }
  }

  private static void write(BoundType type, Object value, JsonGenerator out, boolean javaNumbers)
      throws IOException {
    if (value == null) {
      out.writeNull();
      return;
    }
    switch (type.kind) {
      case STRUCT:
        writeStruct(type, (Record) value, out, javaNumbers);
        break;
      case MAP:
        out.writeStartObject();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          out.writeFieldName(entry.getKey().toString());
          write(type.element, entry.getValue(), out, javaNumbers);
        }
        out.writeEndObject();
        break;
      case LIST:
        out.writeStartArray();
        for (Object element : (List<?>) value) {
          write(type.element, element, out, javaNumbers);
        }
        out.writeEndArray();
        break;
      default:
        writeScalar(type, value, out, javaNumbers);
    }
  }

  private static void writeStruct(
      BoundType type, Record record, JsonGenerator out, boolean javaNumbers) throws IOException {
    out.writeStartObject();
    for (int i = 0; i < type.fields.length; i++) {
      Object field = record.get(type.positions[i]);
      // an absent property and an explicit null decode alike: null is written as absent
      if (field != null) {
        out.writeFieldName(type.names[i]);
        write(type.fields[i], field, out, javaNumbers);
      }
    }
    out.writeEndObject();
  }

  private static void writeScalar(
      BoundType type, Object value, JsonGenerator out, boolean javaNumbers) throws IOException {
    switch (type.kind) {
      case STRING:
        out.writeString(value.toString());
        break;
      case DATE:
        out.writeString(JsonDateTimes.format((LocalDate) value));
        break;
      case TIMESTAMP:
        out.writeString(JsonDateTimes.format((OffsetDateTime) value));
        break;
      case LONG:
        out.writeNumber(((Number) value).longValue());
        break;
      case DOUBLE:
        double number = ((Number) value).doubleValue();
        out.writeNumber(javaNumbers ? JsNumbers.javaForm(number) : JsNumbers.toString(number));
        break;
      case BOOLEAN:
        out.writeBoolean((Boolean) value);
        break;
      default:
        out.writeRawValue(value.toString());
    }
  }
}
