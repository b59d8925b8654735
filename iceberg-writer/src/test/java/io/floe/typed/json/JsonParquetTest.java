package io.floe.typed.json;

import static io.floe.typed.json.JsonFixtures.REFERENCES;
import static io.floe.typed.json.JsonFixtures.decode;
import static io.floe.typed.json.JsonFixtures.encode;
import static io.floe.typed.json.JsonFixtures.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.typed.PayloadCodec;
import io.floe.typed.WriterSchema;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values stored in Parquet and read back by Iceberg's generic reader re-encode the same. */
class JsonParquetTest {

  /** A second version of the order schema: a new property first, another order, a wider address. */
  static final String ORDER_V2 =
      "{\"type\": \"object\", \"properties\": {"
          + "\"note\": {\"type\": \"string\"},"
          + "\"address\": {\"type\": \"object\", \"properties\": {"
          + "\"country\": {\"type\": \"string\"}, \"city\": {\"type\": \"string\"}}},"
          + "\"id\": {\"type\": \"integer\"},"
          + "\"scores\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"number\"}}}}";

  @TempDir Path dir;

  private static Schema valueColumn(Type type) {
    return new Schema(Types.NestedField.optional(1000, "value", type));
  }

  private List<Object> throughParquet(Schema schema, List<Object> values) throws IOException {
    File file = dir.resolve("values-" + System.nanoTime() + ".parquet").toFile();
    try (FileAppender<Record> out =
        Parquet.write(Files.localOutput(file))
            .schema(schema)
            .createWriterFunc(GenericParquetWriter::create)
            .build()) {
      for (Object value : values) {
        Record row = GenericRecord.create(schema);
        row.set(0, value);
        out.add(row);
      }
    }
    List<Object> back = new ArrayList<>();
    try (CloseableIterable<Record> in =
        Parquet.read(Files.localInput(file))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      for (Record row : in) {
        back.add(row.get(0));
      }
    }
    return back;
  }

  static List<String> orderPayloads() throws IOException {
    List<String> payloads = new ArrayList<>();
    payloads.add(JsonRoundTripTest.JS_ORDER);
    payloads.add(JsonRoundTripTest.JS_NUMBERS);
    payloads.add(new ObjectMapper().writeValueAsString(JsonRoundTripTest.jacksonOrder()));
    payloads.add("{\"id\": 1, \"name\": \"x\", \"tags\": [\"a\", null, \"b\"]}");
    payloads.add("{\"name\":\"caf\\u00e9 \\u003c\\u0026 \\ud800 \\ud83d\\ude00\"}");
    payloads.add(
        "{\"score\":1.10,\"scores\":{\"a\":1E5,\"b\":-0,\"c\":1.0E21,\"a\":2,\"n\":null}}");
    payloads.add("{\"rank\":-0,\"id\":2.50e1,\"id\":-9223372036854775808}");
    payloads.add("{\"seen\":\"2024-01-31t10:15:30.1234567+05:30\",\"born\":\"9999-12-31\"}");
    payloads.add("{\"anything\": {\"b\" : [1.50, \"\\u00e9\"] },\"kind\":\"order\",\"extra\":[]}");
    payloads.add(
        "{\"lines\":[null,{},{\"qty\":1,\"zzz\":2}],\"tree\":{\"children\":[{\"x\":[]}]}}");
    payloads.add("{\"scores\":{},\"tags\":[],\"lines\":[],\"address\":{}}");
    payloads.add("{}");
    return payloads;
  }

  @Test
  void everyCaseReEncodesTheSameAfterParquet() throws Exception {
    WriterSchema order = schema(JsonFixtures.ORDER, REFERENCES);
    Schema table = valueColumn(order.icebergType());
    PayloadCodec codec = order.bind(table.findField("value").type());
    List<Object> decoded = new ArrayList<>();
    for (String payload : orderPayloads()) {
      decoded.add(decode(codec, payload));
    }

    List<Object> back = throughParquet(table, decoded);

    assertThat(back).hasSameSizeAs(decoded);
    for (int i = 0; i < decoded.size(); i++) {
      assertThat(encode(codec, back.get(i))).isEqualTo(encode(codec, decoded.get(i)));
    }
    Map<?, ?> scores = (Map<?, ?>) ((Record) back.get(5)).getField("scores");
    assertThat(List.copyOf(scores.keySet())).isEqualTo(List.of("a", "b", "c", "n"));
  }

  @Test
  void randomJavaScriptOrdersRoundTripExactlyThroughParquet() throws Exception {
    WriterSchema order = schema(JsonFixtures.ORDER, REFERENCES);
    Schema table = valueColumn(order.icebergType());
    PayloadCodec codec = order.bind(table.findField("value").type());
    List<String> payloads = JsonFixtures.javaScriptOrders();
    assertThat(payloads).hasSize(300);
    List<Object> decoded = new ArrayList<>();
    for (String payload : payloads) {
      decoded.add(JsonFixtures.assertExact(codec, payload));
    }

    List<Object> back = throughParquet(table, decoded);

    for (int i = 0; i < payloads.size(); i++) {
      assertThat(encode(codec, back.get(i))).isEqualTo(payloads.get(i));
    }
  }

  @Test
  void codecsBoundToAWidenedColumnRoundTripThroughParquet() throws Exception {
    WriterSchema v1 = schema(JsonFixtures.ORDER, REFERENCES);
    WriterSchema v2 = schema(ORDER_V2, Map.of());
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("json", Map.of());
    catalog.createNamespace(Namespace.of("db"));
    Table table =
        catalog.createTable(TableIdentifier.of("db", "orders"), valueColumn(v1.icebergType()));
    table.updateSchema().unionByNameWith(valueColumn(v2.icebergType())).commit();
    Schema merged = table.schema();
    Types.StructType column = merged.findField("value").type().asStructType();
    assertThat(column.fields().get(column.fields().size() - 1).name()).isEqualTo("note");
    assertThat(column.field("address").type().asStructType().field("country")).isNotNull();
    PayloadCodec codec1 = v1.bind(column);
    PayloadCodec codec2 = v2.bind(column);

    String payload2 = "{\"note\":\"n\",\"address\":{\"country\":\"CH\",\"city\":\"c\"},\"id\":5}";
    Record value1 = (Record) JsonFixtures.assertExact(codec1, JsonRoundTripTest.JS_ORDER);
    Record value2 = (Record) JsonFixtures.assertExact(codec2, payload2);
    assertThat(value1.struct()).isEqualTo(column);
    assertThat(value1.getField("note")).isNull();
    assertThat(value2.getField("id")).isEqualTo(5L);
    assertThat(((Record) value2.getField("address")).getField("country")).isEqualTo("CH");
    assertThat(encode(codec1, value2)).isEqualTo("{\"id\":5,\"address\":{\"city\":\"c\"}}");

    List<Object> back = throughParquet(merged, List.of(value1, value2));

    assertThat(encode(codec1, back.get(0))).isEqualTo(JsonRoundTripTest.JS_ORDER);
    assertThat(encode(codec2, back.get(1))).isEqualTo(payload2);
  }

  @Test
  void aColumnThatCannotHoldTheSchemaIsRefused() {
    WriterSchema v2 = schema(ORDER_V2, Map.of());
    WriterSchema v1 = schema(JsonFixtures.ORDER, REFERENCES);
    assertThatThrownBy(() -> v2.bind(Types.StringType.get()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> v2.bind(v1.icebergType()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("note");
    Types.StructType idAsString =
        Types.StructType.of(Types.NestedField.optional(1, "id", Types.StringType.get()));
    assertThatThrownBy(
            () ->
                schema(
                        "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}}",
                        Map.of())
                    .bind(idAsString))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(".id");
  }
}
