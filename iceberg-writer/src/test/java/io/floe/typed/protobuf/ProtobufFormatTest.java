package io.floe.typed.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.floe.typed.InvalidSchemaException;
import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.WriterSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProtobufFormatTest {

  static final String MONEY =
      """
      syntax = "proto3";
      package floe.common;
      message Money { string currency = 1; int64 units = 2; }
      """;

  static final String ORDER =
      """
      syntax = "proto3";
      package floe.test;
      import "google/protobuf/timestamp.proto";
      import "google/protobuf/wrappers.proto";
      import "common/money.proto";

      message Order {
        string id = 1;
        int32 i32 = 2;
        sint32 s32 = 3;
        sfixed32 sf32 = 4;
        uint32 u32 = 5;
        fixed32 f32 = 6;
        int64 i64 = 7;
        sint64 s64 = 8;
        sfixed64 sf64 = 9;
        uint64 u64 = 10;
        fixed64 f64 = 11;
        float fl = 12;
        double db = 13;
        bool flag = 14;
        bytes blob = 15;
        Status status = 16;
        repeated int32 counts = 17;
        repeated string tags = 18;
        map<string, int64> totals = 19;
        map<uint32, Line> lines_by_no = 20;
        Line main_line = 21;
        repeated Line lines = 22;
        oneof payment {
          string card = 23;
          floe.common.Money cash = 24;
        }
        google.protobuf.Timestamp created = 25;
        google.protobuf.Int32Value qty = 26;
        google.protobuf.StringValue note = 27;
        optional int32 maybe = 28;
        repeated float ratios = 29;

        enum Status { UNKNOWN = 0; OPEN = 1; CLOSED = 2; }
        message Line {
          string sku = 1;
          uint64 amount = 2;
          repeated double weights = 3;
          message Note { string text = 1; }
        }
      }

      message Tree {
        string name = 1;
        repeated Tree children = 2;
        Tree parent = 3;
      }
      """;

  static final Map<String, String> REFERENCES = Map.of("common/money.proto", MONEY);

  @TempDir Path dir;

  static WriterSchema schema(String text, Map<String, String> references, Integer... indexes)
      throws InvalidSchemaException {
    return new ProtobufFormat().writerSchema(text, references, List.of(indexes));
  }

  static WriterSchema order() throws InvalidSchemaException {
    return schema(ORDER, REFERENCES);
  }

  static Descriptor descriptor(WriterSchema schema) {
    return ((ProtobufWriterSchema) schema).descriptor();
  }

  static DynamicMessage.Builder builder(Descriptor type, Object... namesAndValues) {
    DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
    for (int i = 0; i < namesAndValues.length; i += 2) {
      FieldDescriptor field = type.findFieldByName((String) namesAndValues[i]);
      Object value = namesAndValues[i + 1];
      if (value instanceof List<?> list) {
        list.forEach(v -> builder.addRepeatedField(field, v));
      } else {
        builder.setField(field, value);
      }
    }
    return builder;
  }

  static DynamicMessage message(Descriptor type, Object... namesAndValues) {
    return builder(type, namesAndValues).build();
  }

  static DynamicMessage fullOrder(Descriptor order) {
    Descriptor line = order.findNestedTypeByName("Line");
    Descriptor money = order.findFieldByName("cash").getMessageType();
    Descriptor timestamp = order.findFieldByName("created").getMessageType();
    Descriptor int32Value = order.findFieldByName("qty").getMessageType();
    Descriptor stringValue = order.findFieldByName("note").getMessageType();
    Descriptor totalsEntry = order.findFieldByName("totals").getMessageType();
    Descriptor linesEntry = order.findFieldByName("lines_by_no").getMessageType();
    DynamicMessage first =
        message(line, "sku", "A-1", "amount", -2L, "weights", List.of(1.5, -0.0));
    DynamicMessage second = message(line, "sku", "B-2", "amount", 7L);
    return message(
        order,
        "id",
        "o-1",
        "i32",
        -5,
        "s32",
        -6,
        "sf32",
        -7,
        "u32",
        -1,
        "f32",
        42,
        "i64",
        Long.MIN_VALUE,
        "s64",
        -9L,
        "sf64",
        10L,
        "u64",
        -1L,
        "f64",
        12L,
        "fl",
        1.25f,
        "db",
        Double.NaN,
        "flag",
        true,
        "blob",
        ByteString.copyFrom(new byte[] {0, 1, 2, (byte) 255}),
        "status",
        order.findEnumTypeByName("Status").findValueByName("CLOSED"),
        "counts",
        List.of(1, -1, 300),
        "tags",
        List.of("x", "", "zé"),
        "totals",
        List.of(
            message(totalsEntry, "key", "b", "value", 2L),
            message(totalsEntry, "key", "a", "value", 1L)),
        "lines_by_no",
        List.of(
            message(linesEntry, "key", 9, "value", first),
            message(linesEntry, "key", 3, "value", second)),
        "main_line",
        first,
        "lines",
        List.of(second, first),
        "cash",
        message(money, "currency", "EUR", "units", 12L),
        "created",
        message(timestamp, "seconds", 1_700_000_000L, "nanos", 123_456_000),
        "qty",
        message(int32Value, "value", 0),
        "note",
        message(stringValue, "value", "hi"),
        "maybe",
        0,
        "ratios",
        List.of(0.5f, Float.NaN));
  }

  static PayloadCodec codec(WriterSchema schema) {
    return schema.bind(schema.icebergType());
  }

  static Record decode(PayloadCodec codec, byte[] payload) throws UndecodablePayloadException {
    return (Record) codec.decode(ByteBuffer.wrap(payload));
  }

  @Test
  void everyMappingRoundTripsByteExactThroughParquet() throws Exception {
    WriterSchema schema = order();
    Descriptor type = descriptor(schema);
    List<Message> messages =
        List.of(
            fullOrder(type),
            message(type),
            message(type, "card", ""),
            message(
                type,
                "card",
                "4111",
                "status",
                type.findEnumTypeByName("Status").findValueByNumberCreatingIfUnknown(7)),
            message(
                type,
                "id",
                "only",
                "maybe",
                3,
                "qty",
                message(type.findFieldByName("qty").getMessageType())));
    PayloadCodec codec = codec(schema);
    List<Record> decoded = new ArrayList<>();
    for (Message message : messages) {
      byte[] payload = message.toByteArray();
      Record value = decode(codec, payload);
      assertThat(codec.encode(value)).as("%s", message).isEqualTo(payload);
      decoded.add(value);
    }
    List<Object> readBack =
        ParquetRoundTrip.roundTrip(schema.icebergType().asStructType(), decoded, dir);
    for (int i = 0; i < decoded.size(); i++) {
      assertThat(codec.encode(readBack.get(i))).isEqualTo(messages.get(i).toByteArray());
    }
  }

  @Test
  void decodedValuesFollowTheMapping() throws Exception {
    WriterSchema schema = order();
    Record value = decode(codec(schema), fullOrder(descriptor(schema)).toByteArray());
    assertThat(value.getField("id")).isEqualTo("o-1");
    assertThat(value.getField("i32")).isEqualTo(-5);
    assertThat(value.getField("u32")).isEqualTo(4_294_967_295L);
    assertThat(value.getField("f32")).isEqualTo(42L);
    assertThat(value.getField("u64")).isEqualTo(new BigDecimal("18446744073709551615"));
    assertThat(value.getField("f64")).isEqualTo(new BigDecimal(12));
    assertThat(value.getField("blob")).isEqualTo(ByteBuffer.wrap(new byte[] {0, 1, 2, (byte) 255}));
    assertThat(value.getField("status")).isEqualTo("CLOSED");
    assertThat(value.getField("counts")).isEqualTo(List.of(1, -1, 300));
    assertThat(new ArrayList<Object>(((Map<?, ?>) value.getField("totals")).keySet()))
        .containsExactly("b", "a");
    Map<?, ?> linesByNo = (Map<?, ?>) value.getField("lines_by_no");
    assertThat(new ArrayList<Object>(linesByNo.keySet())).containsExactly(9L, 3L);
    Record line = (Record) linesByNo.get(9L);
    assertThat(line.getField("amount")).isEqualTo(new BigDecimal("18446744073709551614"));
    assertThat(line.getField("weights")).isEqualTo(List.of(1.5, -0.0));
    Record payment = (Record) value.getField("payment");
    assertThat(payment.getField("card")).isNull();
    assertThat(((Record) payment.getField("cash")).getField("currency")).isEqualTo("EUR");
    assertThat(value.getField("created"))
        .isEqualTo(OffsetDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_000, ZoneOffset.UTC));
    assertThat(value.getField("qty")).isEqualTo(0);
    assertThat(value.getField("note")).isEqualTo("hi");
    assertThat(value.getField("maybe")).isEqualTo(0);

    Record empty = decode(codec(schema), new byte[0]);
    assertThat(empty.getField("id")).isEqualTo("");
    assertThat(empty.getField("i32")).isEqualTo(0);
    assertThat(empty.getField("status")).isEqualTo("UNKNOWN");
    assertThat(empty.getField("main_line")).isNull();
    assertThat(empty.getField("payment")).isNull();
    assertThat(empty.getField("created")).isNull();
    assertThat(empty.getField("qty")).isNull();
    assertThat(empty.getField("maybe")).isNull();
    assertThat(empty.getField("counts")).isEqualTo(List.of());
  }

  @Test
  void unknownEnumNumberIsItsDecimalNumber() throws Exception {
    WriterSchema schema = order();
    Descriptor type = descriptor(schema);
    byte[] payload =
        message(
                type,
                "status",
                type.findEnumTypeByName("Status").findValueByNumberCreatingIfUnknown(-3))
            .toByteArray();
    Record value = decode(codec(schema), payload);
    assertThat(value.getField("status")).isEqualTo("-3");
    assertThat(codec(schema).encode(value)).isEqualTo(payload);
  }

  @Test
  void typeHasFieldsInDeclarationOrderWithDepthFirstIds() throws Exception {
    Types.StructType type = order().icebergType().asStructType();
    assertThat(type.fields()).allMatch(Types.NestedField::isOptional);
    assertThat(type.fields().get(0).fieldId()).isEqualTo(1);
    assertThat(type.field("id").type()).isEqualTo(Types.StringType.get());
    assertThat(type.field("sf32").type()).isEqualTo(Types.IntegerType.get());
    assertThat(type.field("u32").type()).isEqualTo(Types.LongType.get());
    assertThat(type.field("u64").type()).isEqualTo(Types.DecimalType.of(20, 0));
    assertThat(type.field("blob").type()).isEqualTo(Types.BinaryType.get());
    assertThat(type.field("status").type()).isEqualTo(Types.StringType.get());
    assertThat(type.field("created").type()).isEqualTo(Types.TimestampType.withZone());
    assertThat(type.field("qty").type()).isEqualTo(Types.IntegerType.get());
    assertThat(type.field("note").type()).isEqualTo(Types.StringType.get());
    assertThat(type.field("maybe").type()).isEqualTo(Types.IntegerType.get());
    Types.NestedField payment = type.field("payment");
    assertThat(payment.type().asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("card", "cash");
    assertThat(type.fields())
        .extracting(Types.NestedField::name)
        .containsSubsequence("lines", "payment", "created");
    Types.NestedField counts = type.field("counts");
    assertThat(counts.type().asListType().elementId()).isEqualTo(counts.fieldId() + 1);
    Types.NestedField mainLine = type.field("main_line");
    assertThat(mainLine.type().asStructType().fields().get(0).fieldId())
        .isEqualTo(mainLine.fieldId() + 1);
    Types.MapType totals = type.field("totals").type().asMapType();
    assertThat(totals.keyType()).isEqualTo(Types.StringType.get());
    assertThat(totals.valueType()).isEqualTo(Types.LongType.get());
  }

  @Test
  void messageIndexesSelectNestedMessages() throws Exception {
    assertThat(descriptor(schema(ORDER, REFERENCES)).getFullName()).isEqualTo("floe.test.Order");
    assertThat(descriptor(schema(ORDER, REFERENCES, 0)).getFullName()).isEqualTo("floe.test.Order");
    assertThat(descriptor(schema(ORDER, REFERENCES, 1)).getFullName()).isEqualTo("floe.test.Tree");
    // Map entries count among nested messages, in declaration order, as protoc numbers them
    assertThat(descriptor(schema(ORDER, REFERENCES, 0, 0)).getName()).isEqualTo("TotalsEntry");
    assertThat(descriptor(schema(ORDER, REFERENCES, 0, 1)).getName()).isEqualTo("LinesByNoEntry");
    assertThat(descriptor(schema(ORDER, REFERENCES, 0, 2)).getName()).isEqualTo("Line");
    WriterSchema note = schema(ORDER, REFERENCES, 0, 2, 0);
    assertThat(descriptor(note).getFullName()).isEqualTo("floe.test.Order.Line.Note");
    byte[] payload = message(descriptor(note), "text", "n").toByteArray();
    assertThat(decode(codec(note), payload).getField("text")).isEqualTo("n");
    assertThatThrownBy(() -> schema(ORDER, REFERENCES, 2))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("[2]");
    assertThatThrownBy(() -> schema(ORDER, REFERENCES, 0, 9))
        .isInstanceOf(InvalidSchemaException.class);
  }

  @Test
  void recursiveMessageHoldsTheInnerBytes() throws Exception {
    WriterSchema schema = schema(ORDER, REFERENCES, 1);
    Descriptor tree = descriptor(schema);
    Types.StructType type = schema.icebergType().asStructType();
    assertThat(type.field("parent").type()).isEqualTo(Types.BinaryType.get());
    assertThat(type.field("children").type().asListType().elementType())
        .isEqualTo(Types.BinaryType.get());
    DynamicMessage leaf = message(tree, "name", "leaf");
    DynamicMessage mid = message(tree, "name", "mid", "children", List.of(leaf, leaf));
    DynamicMessage root = message(tree, "name", "root", "children", List.of(mid), "parent", leaf);
    PayloadCodec codec = codec(schema);
    Record value = decode(codec, root.toByteArray());
    assertThat(value.getField("parent")).isEqualTo(ByteBuffer.wrap(leaf.toByteArray()));
    assertThat(codec.encode(value)).isEqualTo(root.toByteArray());
    List<Object> readBack = ParquetRoundTrip.roundTrip(type, List.of(value), dir);
    assertThat(codec.encode(readBack.get(0))).isEqualTo(root.toByteArray());
  }

  @Test
  void bindsToAWidenedColumnType() throws Exception {
    String narrow =
        """
        syntax = "proto3";
        message M {
          int32 n = 1;
          float f = 2;
          uint64 u = 3;
          repeated int32 ns = 4;
          map<string, float> fs = 5;
          Inner inner = 6;
          message Inner { int32 x = 1; }
        }
        """;
    WriterSchema schema = schema(narrow, Map.of());
    Types.StructType wide =
        Types.StructType.of(
            Types.NestedField.optional(100, "extra", Types.StringType.get()),
            Types.NestedField.optional(1, "n", Types.LongType.get()),
            Types.NestedField.optional(2, "f", Types.DoubleType.get()),
            Types.NestedField.optional(3, "u", Types.DecimalType.of(38, 0)),
            Types.NestedField.optional(4, "ns", Types.ListType.ofOptional(5, Types.LongType.get())),
            Types.NestedField.optional(
                6,
                "fs",
                Types.MapType.ofOptional(7, 8, Types.StringType.get(), Types.DoubleType.get())),
            Types.NestedField.optional(
                9,
                "inner",
                Types.StructType.of(
                    Types.NestedField.optional(10, "x", Types.LongType.get()),
                    Types.NestedField.optional(11, "y", Types.StringType.get()))));
    Descriptor type = descriptor(schema);
    Descriptor fsEntry = type.findFieldByName("fs").getMessageType();
    Descriptor inner = type.findNestedTypeByName("Inner");
    byte[] payload =
        message(
                type,
                "n",
                -3,
                "f",
                0.1f,
                "u",
                -1L,
                "ns",
                List.of(Integer.MIN_VALUE, 2),
                "fs",
                List.of(message(fsEntry, "key", "k", "value", Float.NaN)),
                "inner",
                message(inner, "x", 4))
            .toByteArray();
    PayloadCodec codec = schema.bind(wide);
    Record value = decode(codec, payload);
    assertThat(value.getField("extra")).isNull();
    assertThat(value.getField("n")).isEqualTo(-3L);
    assertThat(value.getField("f")).isEqualTo((double) 0.1f);
    assertThat(value.getField("ns")).isEqualTo(List.of((long) Integer.MIN_VALUE, 2L));
    assertThat(((Record) value.getField("inner")).getField("y")).isNull();
    assertThat(codec.encode(value)).isEqualTo(payload);
    List<Object> readBack = ParquetRoundTrip.roundTrip(wide, List.of(value), dir);
    assertThat(codec.encode(readBack.get(0))).isEqualTo(payload);

    Type tooNarrow =
        Types.StructType.of(Types.NestedField.optional(1, "n", Types.StringType.get()));
    assertThatThrownBy(() -> schema.bind(tooNarrow)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void undecodablePayloadsSayWhy() throws Exception {
    WriterSchema schema = order();
    PayloadCodec codec = codec(schema);
    assertThatThrownBy(() -> decode(codec, new byte[] {0x0a, 0x05, 'a'}))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("floe.test.Order")
        .hasMessageContaining("truncated");
    assertThatThrownBy(() -> decode(codec, new byte[] {0x00}))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("invalid tag");
    byte[] badUtf8 = {0x0a, 0x02, (byte) 0xc3, 0x28};
    assertThatThrownBy(() -> decode(codec, badUtf8))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("UTF-8");
  }

  @Test
  void referencesResolveTransitivelyAndPublicly() throws Exception {
    String base = "syntax = \"proto2\"; package b; message Base { required int32 v = 1; }";
    String middle = "syntax = \"proto2\"; package b; import public \"base.proto\";";
    String top =
        """
        syntax = "proto2";
        package t;
        import "middle.proto";
        message Top { optional b.Base base = 1; }
        """;
    WriterSchema schema = schema(top, Map.of("middle.proto", middle, "base.proto", base));
    Descriptor type = descriptor(schema);
    Descriptor baseType = type.findFieldByName("base").getMessageType();
    byte[] payload = message(type, "base", message(baseType, "v", 0)).toByteArray();
    PayloadCodec codec = codec(schema);
    Record value = decode(codec, payload);
    assertThat(((Record) value.getField("base")).getField("v")).isEqualTo(0);
    assertThat(codec.encode(value)).isEqualTo(payload);
    // A missing required field makes the payload invalid
    assertThatThrownBy(() -> decode(codec, new byte[] {0x0a, 0x00}))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("v");
  }

  @Test
  void invalidProtoIsAnInvalidSchema() {
    assertThatThrownBy(() -> schema("message {", Map.of()))
        .isInstanceOf(InvalidSchemaException.class);
    assertThatThrownBy(() -> schema("syntax = \"proto3\"; message M { Missing m = 1; }", Map.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("Missing");
    assertThatThrownBy(() -> schema(ORDER, Map.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("common/money.proto");
    assertThatThrownBy(
            () -> schema("syntax = \"proto3\"; message M { int32 a = 1; int32 b = 1; }", Map.of()))
        .isInstanceOf(InvalidSchemaException.class);
    assertThatThrownBy(() -> schema("syntax = \"proto3\";", Map.of()))
        .isInstanceOf(InvalidSchemaException.class);
    String group =
        "syntax = \"proto2\"; message M { optional group G = 1 { optional int32 a = 2; } }";
    assertThatThrownBy(() -> schema(group, Map.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("groups");
  }
}
