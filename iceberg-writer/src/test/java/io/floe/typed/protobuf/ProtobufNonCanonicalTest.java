package io.floe.typed.protobuf;

import static io.floe.typed.protobuf.ProtobufFormatTest.message;
import static io.floe.typed.protobuf.ProtobufFormatTest.schema;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.WireFormat;
import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Payloads other writers produce that protobuf-java would not: each decodes to the right value,
 * re-encodes to the canonical bytes (so differently, and the record keeps its bytes), and
 * re-encodes the same after a trip through Parquet.
 */
class ProtobufNonCanonicalTest {

  static final String PROTO3 =
      """
      syntax = "proto3";
      import "google/protobuf/timestamp.proto";
      message M {
        int32 a = 1;
        string b = 2;
        repeated int32 r = 3;
        float f = 4;
        double d = 5;
        google.protobuf.Timestamp t = 6;
        map<string, int32> m = 7;
        Status s = 8;
        Inner inner = 9;
        enum Status { ZERO = 0; ONE = 1; }
        message Inner { int32 x = 1; int32 y = 2; }
      }
      """;

  static final String PROTO2 =
      """
      syntax = "proto2";
      message P {
        optional int32 a = 1;
        repeated int32 unpacked = 2;
        repeated int32 packed = 3 [packed = true];
        optional Color c = 4;
        optional string text = 5;
        enum Color { RED = 1; }
      }
      """;

  @TempDir Path dir;

  private WriterSchema m;
  private Descriptor type;
  private PayloadCodec codec;
  private final List<Record> decoded = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    m = schema(PROTO3, Map.of());
    type = ProtobufFormatTest.descriptor(m);
    codec = m.bind(m.icebergType());
  }

  /** Decodes a non-canonical payload, checks it re-encodes to the canonical bytes. */
  private Record inexact(byte[] payload, DynamicMessage canonical) throws Exception {
    return inexact(codec, payload, canonical);
  }

  private Record inexact(PayloadCodec with, byte[] payload, DynamicMessage canonical)
      throws Exception {
    Record value = (Record) with.decode(ByteBuffer.wrap(payload));
    byte[] encoded = with.encode(value);
    assertThat(encoded).isNotEqualTo(payload).isEqualTo(canonical.toByteArray());
    decoded.add(value);
    return value;
  }

  private static byte[] bytes(Writer writer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writer.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  @Test
  void fieldsOutOfNumberOrder() throws Exception {
    byte[] payload =
        bytes(
            out -> {
              out.writeString(2, "x");
              out.writeInt32(1, 7);
            });
    Record value = inexact(payload, message(type, "a", 7, "b", "x"));
    assertThat(value.getField("a")).isEqualTo(7);
    assertThat(value.getField("b")).isEqualTo("x");
  }

  @Test
  void unknownFieldsAreDropped() throws Exception {
    byte[] payload =
        bytes(
            out -> {
              out.writeInt32(1, 7);
              out.writeUInt64(99, 5);
              out.writeString(100, "extra");
            });
    Record value = inexact(payload, message(type, "a", 7));
    assertThat(value.getField("a")).isEqualTo(7);
  }

  @Test
  void explicitProto3DefaultIsNotWrittenAgain() throws Exception {
    byte[] payload =
        bytes(
            out -> {
              out.writeInt32(1, 0);
              out.writeString(2, "");
              out.writeEnum(8, 0);
            });
    Record value = inexact(payload, message(type));
    assertThat(value.getField("a")).isEqualTo(0);
    assertThat(value.getField("b")).isEqualTo("");
    assertThat(value.getField("s")).isEqualTo("ZERO");
  }

  @Test
  void unpackedRepeatedScalarsArePacked() throws Exception {
    byte[] payload =
        bytes(
            out -> {
              out.writeInt32(3, 1);
              out.writeInt32(3, -2);
            });
    Record value = inexact(payload, message(type, "r", List.of(1, -2)));
    assertThat(value.getField("r")).isEqualTo(List.of(1, -2));
  }

  @Test
  void nonMinimalVarint() throws Exception {
    byte[] payload = {0x08, (byte) 0x81, 0x00};
    Record value = inexact(payload, message(type, "a", 1));
    assertThat(value.getField("a")).isEqualTo(1);
  }

  @Test
  void nanPayloadsBecomeCanonical() throws Exception {
    byte[] payload =
        bytes(
            out -> {
              out.writeFixed32(4, 0x7fc00001);
              out.writeFixed64(5, 0x7ff8000000000001L);
            });
    Record value = inexact(payload, message(type, "f", Float.NaN, "d", Double.NaN));
    assertThat(Float.floatToRawIntBits((Float) value.getField("f"))).isEqualTo(0x7fc00000);
    assertThat(Double.doubleToRawLongBits((Double) value.getField("d")))
        .isEqualTo(0x7ff8000000000000L);
  }

  @Test
  void timestampNanosBelowAMicroAreCut() throws Exception {
    Descriptor timestamp = type.findFieldByName("t").getMessageType();
    DynamicMessage t = message(timestamp, "seconds", 1_000L, "nanos", 1_500);
    byte[] payload = message(type, "t", t).toByteArray();
    Record value =
        inexact(payload, message(type, "t", message(timestamp, "seconds", 1_000L, "nanos", 1_000)));
    assertThat(value.getField("t"))
        .isEqualTo(OffsetDateTime.ofInstant(Instant.ofEpochSecond(1_000, 1_000), ZoneOffset.UTC));
  }

  @Test
  void lastValueWinsAndSubmessagesMerge() throws Exception {
    Descriptor inner = type.findNestedTypeByName("Inner");
    byte[] payload =
        bytes(
            out -> {
              out.writeInt32(1, 1);
              out.writeMessage(9, message(inner, "x", 3));
              out.writeInt32(1, 2);
              out.writeMessage(9, message(inner, "y", 4));
            });
    Record value = inexact(payload, message(type, "a", 2, "inner", message(inner, "x", 3, "y", 4)));
    assertThat(value.getField("a")).isEqualTo(2);
    assertThat(((Record) value.getField("inner")).getField("x")).isEqualTo(3);
    assertThat(((Record) value.getField("inner")).getField("y")).isEqualTo(4);
  }

  @Test
  void duplicateMapKeyKeepsItsPlaceAndLastValue() throws Exception {
    Descriptor entry = type.findFieldByName("m").getMessageType();
    byte[] payload =
        bytes(
            out -> {
              out.writeMessage(7, message(entry, "key", "k", "value", 1));
              out.writeMessage(7, message(entry, "key", "j", "value", 2));
              out.writeMessage(7, message(entry, "key", "k", "value", 3));
            });
    DynamicMessage canonical =
        message(
            type,
            "m",
            List.of(
                message(entry, "key", "k", "value", 3), message(entry, "key", "j", "value", 2)));
    Record value = inexact(payload, canonical);
    assertThat(value.getField("m")).isEqualTo(Map.of("k", 3, "j", 2));
    assertThat(new ArrayList<Object>(((Map<?, ?>) value.getField("m")).keySet()))
        .containsExactly("k", "j");
  }

  @Test
  void mapEntriesKeepDefaultKeyAndValueAsGeneratedCodeWritesThem() throws Exception {
    // Generated code writes both fields of every map entry, defaults included: exact
    byte[] generated = HexFormat.of().parseHex("3a040a001000");
    Record value = (Record) codec.decode(ByteBuffer.wrap(generated));
    assertThat(value.getField("m")).isEqualTo(Map.of("", 0));
    assertThat(codec.encode(value)).isEqualTo(generated);
    // An entry with its fields left out means the same entry
    Descriptor entry = type.findFieldByName("m").getMessageType();
    Record empty =
        inexact(
            HexFormat.of().parseHex("3a00"),
            message(type, "m", List.of(message(entry, "key", "", "value", 0))));
    assertThat(empty.getField("m")).isEqualTo(Map.of("", 0));
  }

  @Test
  void proto2PackingClosedEnumsAndUtf8() throws Exception {
    WriterSchema p = schema(PROTO2, Map.of());
    Descriptor pType = ProtobufFormatTest.descriptor(p);
    assertThat(pType.findFieldByName("packed").isPacked()).isTrue();
    assertThat(pType.findFieldByName("unpacked").isPacked()).isFalse();
    PayloadCodec pCodec = p.bind(p.icebergType());

    byte[] exact =
        message(pType, "a", 0, "unpacked", List.of(1, 2), "packed", List.of(3)).toByteArray();
    Record present = (Record) pCodec.decode(ByteBuffer.wrap(exact));
    assertThat(present.getField("a")).isEqualTo(0);
    assertThat(present.getField("c")).isNull();
    assertThat(pCodec.encode(present)).isEqualTo(exact);

    byte[] swapped =
        bytes(
            out -> {
              out.writeTag(2, WireFormat.WIRETYPE_LENGTH_DELIMITED);
              out.writeUInt32NoTag(2);
              out.writeInt32NoTag(1);
              out.writeInt32NoTag(2);
              out.writeInt32(3, 3);
            });
    Record value =
        inexact(pCodec, swapped, message(pType, "unpacked", List.of(1, 2), "packed", List.of(3)));
    assertThat(value.getField("unpacked")).isEqualTo(List.of(1, 2));

    byte[] unknownColor = bytes(out -> out.writeEnum(4, 5));
    assertThat(inexact(pCodec, unknownColor, message(pType)).getField("c")).isNull();

    byte[] badUtf8 = {0x2a, 0x02, (byte) 0xc3, 0x28};
    Record lossy = inexact(pCodec, badUtf8, message(pType, "text", "\ufffd("));
    assertThat(lossy.getField("text")).isEqualTo("\ufffd(");
    assertSameAfterParquet(p, pCodec);
  }

  @Test
  void everyCaseReEncodesTheSameAfterParquet() throws Exception {
    fieldsOutOfNumberOrder();
    unknownFieldsAreDropped();
    explicitProto3DefaultIsNotWrittenAgain();
    unpackedRepeatedScalarsArePacked();
    nonMinimalVarint();
    nanPayloadsBecomeCanonical();
    timestampNanosBelowAMicroAreCut();
    lastValueWinsAndSubmessagesMerge();
    duplicateMapKeyKeepsItsPlaceAndLastValue();
    mapEntriesKeepDefaultKeyAndValueAsGeneratedCodeWritesThem();
    assertSameAfterParquet(m, codec);
  }

  private void assertSameAfterParquet(WriterSchema schema, PayloadCodec with) {
    List<Object> readBack =
        ParquetRoundTrip.roundTrip(schema.icebergType().asStructType(), decoded, dir);
    assertThat(readBack).hasSize(decoded.size());
    for (int i = 0; i < decoded.size(); i++) {
      assertThat(with.encode(readBack.get(i))).isEqualTo(with.encode(decoded.get(i)));
    }
  }
}
