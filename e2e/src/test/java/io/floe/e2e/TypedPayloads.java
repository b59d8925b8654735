package io.floe.e2e;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.floe.testing.LocalRegistry;
import io.floe.typed.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Keys and values of typed topics in the schema registry's wire format, built by each format's own
 * writer (protobuf-java's {@link DynamicMessage} from a descriptor built here, Avro's Java writer,
 * JSON as {@code JSON.stringify} writes it), with what the table must hold for each: its status,
 * its typed fields, and for a record that keeps its bytes a part of the reason.
 *
 * <p>Two topic pairs: {@link #protobufValues} (Protobuf values, JSON Schema keys) and {@link
 * #jsonValues} (JSON Schema values, Avro keys). Values are a payment, {@code id}, {@code customer},
 * {@code amount}, {@code tags}, in two versions: the second adds {@code coupon}.
 */
final class TypedPayloads {
  /** What a record of a given kind is made of. */
  enum Kind {
    V1,
    V2,
    /** Protobuf fields out of number order; JSON properties out of the schema's order. */
    VALUE_OUT_OF_ORDER,
    /**
     * Protobuf with an unknown field; JSON with Python's spacing ({@code ", "} and {@code ": "}).
     */
    VALUE_NON_CANONICAL,
    /**
     * Protobuf's first message as message indexes {@code 02 00} (a count of 1 and index 0, as some
     * clients write it) instead of {@code 00}, which is typed and written back as it came; JSON
     * with an escaped letter and an exponent, which keeps its bytes.
     */
    VALUE_OTHER_FORM,
    KEY_NON_CANONICAL,
    /** Not the wire format at all. */
    NOT_WIRE,
    UNKNOWN_ID,
    /** The wire format with a known schema id, then bytes that are not a payload of it. */
    INVALID_PAYLOAD,
    TOMBSTONE,
    NULL_KEY
  }

  /** A key or value: its bytes and what its typed columns must hold (null status: null bytes). */
  record Payload(byte[] bytes, String status, Map<String, Object> fields, String reason) {
    static final Payload NULL = new Payload(null, null, null, null);
  }

  static final int UNKNOWN_ID = 987_654;

  static final String PROTO_V1 =
      "syntax = \"proto3\";\npackage shop;\n\nmessage Payment {\n  int64 id = 1;\n"
          + "  string customer = 2;\n  double amount = 3;\n  repeated string tags = 4;\n}\n";
  static final String PROTO_V2 = PROTO_V1.replace("}\n", "  string coupon = 5;\n}\n");
  static final String JSON_V1 =
      "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
          + "\"customer\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"},"
          + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";
  static final String JSON_V2 =
      JSON_V1.replace("}}}}", "}},\"coupon\":{\"type\":[\"string\",\"null\"]}}}");
  static final String JSON_KEY =
      "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\"},"
          + "\"id\":{\"type\":\"integer\"}}}";
  static final Schema AVRO_KEY =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Key\",\"namespace\":\"shop\",\"fields\":["
                  + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"region\",\"type\":\"string\"}]}");

  private TypedPayloads() {}

  /** A typed topic, its reference twin, and how its keys and values are written. */
  abstract static class Pair {
    final String typed;
    final String reference;
    int v1;
    int v2;
    int keyId;

    Pair(String typed, String reference) {
      this.typed = typed;
      this.reference = reference;
    }

    /** Registers the value's two versions, then the key's schema: ids in a fixed order. */
    abstract void register(LocalRegistry registry);

    abstract byte[] value(int id, Map<String, Object> fields, boolean canonical);

    abstract byte[] outOfOrder(int id, Map<String, Object> fields);

    abstract byte[] otherForm(int id, Map<String, Object> fields);

    /** Whether {@link #otherForm} is a form the table records (typed, no bytes kept). */
    boolean otherFormExact() {
      return false;
    }

    abstract byte[] invalid();

    abstract byte[] key(Map<String, Object> fields, boolean canonical);

    /** The key and value of record {@code n} of this kind. */
    Payload[] record(Kind kind, int n) {
      Map<String, Object> key = new LinkedHashMap<>();
      key.put("region", "eu");
      key.put("id", (long) (n % 50));
      Payload canonicalKey = new Payload(key(key, true), "ok", key, null);
      Map<String, Object> value = payment(n, kind == Kind.V2);
      int id = kind == Kind.V2 ? v2 : v1;
      return switch (kind) {
        case V1, V2 -> new Payload[] {canonicalKey, ok(value(id, value, true), value)};
        case VALUE_OUT_OF_ORDER ->
            new Payload[] {canonicalKey, inexact(outOfOrder(v1, value), value)};
        case VALUE_NON_CANONICAL ->
            new Payload[] {canonicalKey, inexact(value(v1, value, false), value)};
        case VALUE_OTHER_FORM ->
            new Payload[] {
              canonicalKey,
              otherFormExact()
                  ? ok(otherForm(v1, value), value)
                  : inexact(otherForm(v1, value), value)
            };
        case KEY_NON_CANONICAL ->
            new Payload[] {inexact(key(key, false), key), ok(value(v1, value, true), value)};
        case NOT_WIRE ->
            new Payload[] {
              canonicalKey, undecodable("payment " + n, "not the schema registry wire format"),
            };
        case UNKNOWN_ID ->
            new Payload[] {
              canonicalKey, undecodable(value(UNKNOWN_ID, value, true), String.valueOf(UNKNOWN_ID))
            };
        case INVALID_PAYLOAD -> new Payload[] {canonicalKey, undecodable(invalid(), null)};
        case TOMBSTONE -> new Payload[] {canonicalKey, Payload.NULL};
        case NULL_KEY -> new Payload[] {Payload.NULL, ok(value(v1, value, true), value)};
      };
    }
  }

  static Map<String, Object> payment(int n, boolean v2) {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("id", (long) n);
    value.put("customer", "customer-" + n);
    value.put("amount", n + 0.25);
    value.put("tags", n % 2 == 0 ? List.of("t" + n) : List.of("t" + n, "x"));
    if (v2) {
      value.put("coupon", "SAVE" + n);
    }
    return value;
  }

  private static Payload ok(byte[] bytes, Map<String, Object> fields) {
    return new Payload(bytes, "ok", fields, null);
  }

  private static Payload inexact(byte[] bytes, Map<String, Object> fields) {
    return new Payload(bytes, "inexact", fields, null);
  }

  private static Payload undecodable(byte[] bytes, String reason) {
    return new Payload(bytes, "undecodable", null, reason);
  }

  private static Payload undecodable(String text, String reason) {
    return undecodable(text.getBytes(StandardCharsets.UTF_8), reason);
  }

  static byte[] wire(int id, boolean protobuf, byte[] payload) {
    byte[] prefix = WireFormat.prefix(id, List.of(), protobuf);
    byte[] out = new byte[prefix.length + payload.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(payload, 0, out, prefix.length, payload.length);
    return out;
  }

  /** Protobuf values (a message built by protobuf-java), JSON Schema keys. */
  static Pair protobufValues(String typed, String reference) {
    return new Pair(typed, reference) {
      private final Descriptor paymentV1 = paymentDescriptor(false);
      private final Descriptor paymentV2 = paymentDescriptor(true);

      @Override
      void register(LocalRegistry registry) {
        v1 = registry.register(typed + "-value", "PROTOBUF", PROTO_V1);
        v2 = registry.register(typed + "-value", "PROTOBUF", PROTO_V2);
        keyId = registry.register(typed + "-key", "JSON", JSON_KEY);
      }

      @Override
      byte[] value(int id, Map<String, Object> fields, boolean canonical) {
        Descriptor type = fields.containsKey("coupon") ? paymentV2 : paymentV1;
        DynamicMessage.Builder message = DynamicMessage.newBuilder(type);
        fields.forEach(
            (name, v) -> {
              if (v instanceof List<?> list) {
                list.forEach(e -> message.addRepeatedField(type.findFieldByName(name), e));
              } else {
                message.setField(type.findFieldByName(name), v);
              }
            });
        byte[] payload = message.build().toByteArray();
        if (!canonical) {
          // an unknown field 15 (a varint) at the end, as a newer writer would send
          payload = protobuf(payload, out -> out.writeInt64(15, 7L));
        }
        return wire(id, true, payload);
      }

      @Override
      byte[] outOfOrder(int id, Map<String, Object> fields) {
        byte[] payload =
            protobuf(
                new byte[0],
                out -> {
                  @SuppressWarnings("unchecked")
                  List<String> tags = (List<String>) fields.get("tags");
                  for (String tag : tags) {
                    out.writeString(4, tag);
                  }
                  out.writeString(2, (String) fields.get("customer"));
                  out.writeDouble(3, (Double) fields.get("amount"));
                  out.writeInt64(1, (Long) fields.get("id"));
                });
        return wire(id, true, payload);
      }

      @Override
      boolean otherFormExact() {
        return true;
      }

      @Override
      byte[] otherForm(int id, Map<String, Object> fields) {
        byte[] canonical = value(id, fields, true);
        byte[] out = new byte[canonical.length + 1];
        System.arraycopy(canonical, 0, out, 0, 5);
        out[5] = 2; // one index (zig-zag 1), then index 0
        System.arraycopy(canonical, 5, out, 6, canonical.length - 5);
        return out;
      }

      @Override
      byte[] invalid() {
        // field 2 (customer) says 16 bytes follow, then the payload ends
        return wire(v1, true, new byte[] {0x12, 0x10, 'a'});
      }

      @Override
      byte[] key(Map<String, Object> fields, boolean canonical) {
        String sep = canonical ? ":" : ": ";
        String json =
            "{\"region\""
                + sep
                + "\""
                + fields.get("region")
                + "\""
                + (canonical ? "," : ", ")
                + "\"id\""
                + sep
                + fields.get("id")
                + "}";
        return wire(keyId, false, json.getBytes(StandardCharsets.UTF_8));
      }
    };
  }

  /** JSON Schema values (as {@code JSON.stringify} writes them), Avro keys. */
  static Pair jsonValues(String typed, String reference) {
    return new Pair(typed, reference) {
      @Override
      void register(LocalRegistry registry) {
        v1 = registry.register(typed + "-value", "JSON", JSON_V1);
        v2 = registry.register(typed + "-value", "JSON", JSON_V2);
        keyId = registry.register(typed + "-key", "AVRO", AVRO_KEY.toString());
      }

      @Override
      byte[] value(int id, Map<String, Object> fields, boolean canonical) {
        return wire(id, false, json(fields, List.copyOf(fields.keySet()), canonical));
      }

      @Override
      byte[] outOfOrder(int id, Map<String, Object> fields) {
        return wire(id, false, json(fields, List.of("customer", "id", "tags", "amount"), true));
      }

      @Override
      byte[] otherForm(int id, Map<String, Object> fields) {
        String canonical =
            new String(json(fields, List.copyOf(fields.keySet()), true), StandardCharsets.UTF_8);
        String other =
            canonical
                .replace("\"customer-", "\"\\u0063ustomer-")
                .replace(
                    "\"amount\":" + fields.get("amount"),
                    "\"amount\":" + fields.get("amount") + "0E0");
        return wire(id, false, other.getBytes(StandardCharsets.UTF_8));
      }

      @Override
      byte[] invalid() {
        return wire(v1, false, "{\"id\":".getBytes(StandardCharsets.UTF_8));
      }

      @Override
      byte[] key(Map<String, Object> fields, boolean canonical) {
        GenericRecord key = new GenericData.Record(AVRO_KEY);
        key.put("id", fields.get("id"));
        key.put("region", fields.get("region"));
        try {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
          new GenericDatumWriter<GenericRecord>(AVRO_KEY).write(key, encoder);
          encoder.flush();
          byte[] bytes = wire(keyId, false, out.toByteArray());
          return canonical ? bytes : nonMinimalFirstVarint(bytes);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  /** JSON text of {@code fields} in {@code order}; not canonical: with Python's spacing. */
  private static byte[] json(Map<String, Object> fields, List<String> order, boolean canonical) {
    String comma = canonical ? "," : ", ";
    String colon = canonical ? ":" : ": ";
    StringBuilder out = new StringBuilder("{");
    for (String name : order) {
      if (out.length() > 1) {
        out.append(comma);
      }
      out.append('"').append(name).append('"').append(colon);
      Object v = fields.get(name);
      if (v instanceof List<?> list) {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          out.append(i > 0 ? comma : "").append('"').append(list.get(i)).append('"');
        }
        out.append(']');
      } else if (v instanceof String s) {
        out.append('"').append(s).append('"');
      } else {
        out.append(v); // longs, and doubles with a fraction: as JavaScript writes them
      }
    }
    return out.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The first field (a varint of one byte after the 5-byte prefix) written with two bytes. */
  static byte[] nonMinimalFirstVarint(byte[] wire) {
    byte[] out = new byte[wire.length + 1];
    System.arraycopy(wire, 0, out, 0, 5);
    out[5] = (byte) (wire[5] | 0x80);
    out[6] = 0;
    System.arraycopy(wire, 6, out, 7, wire.length - 6);
    return out;
  }

  private interface ProtoWriter {
    void write(CodedOutputStream out) throws IOException;
  }

  private static byte[] protobuf(byte[] head, ProtoWriter writer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(head);
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writer.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The descriptor of {@link #PROTO_V1} or {@link #PROTO_V2}, built without parsing the text. */
  static Descriptor paymentDescriptor(boolean v2) {
    DescriptorProto.Builder payment =
        DescriptorProto.newBuilder()
            .setName("Payment")
            .addField(field("id", 1, Type.TYPE_INT64, Label.LABEL_OPTIONAL))
            .addField(field("customer", 2, Type.TYPE_STRING, Label.LABEL_OPTIONAL))
            .addField(field("amount", 3, Type.TYPE_DOUBLE, Label.LABEL_OPTIONAL))
            .addField(field("tags", 4, Type.TYPE_STRING, Label.LABEL_REPEATED));
    if (v2) {
      payment.addField(field("coupon", 5, Type.TYPE_STRING, Label.LABEL_OPTIONAL));
    }
    FileDescriptorProto file =
        FileDescriptorProto.newBuilder()
            .setName("payment.proto")
            .setPackage("shop")
            .setSyntax("proto3")
            .addMessageType(payment)
            .build();
    try {
      return FileDescriptor.buildFrom(file, new FileDescriptor[0]).findMessageTypeByName("Payment");
    } catch (com.google.protobuf.Descriptors.DescriptorValidationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static FieldDescriptorProto field(String name, int number, Type type, Label label) {
    return FieldDescriptorProto.newBuilder()
        .setName(name)
        .setNumber(number)
        .setType(type)
        .setLabel(label)
        .build();
  }
}
