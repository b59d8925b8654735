package io.floe.typed.json;

import static io.floe.typed.json.JsonFixtures.ORDER;
import static io.floe.typed.json.JsonFixtures.REFERENCES;
import static io.floe.typed.json.JsonFixtures.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.typed.InvalidSchemaException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class JsonSchemaFormatTest {

  private static Type type(String text) {
    return schema(text, Map.of()).icebergType();
  }

  @Test
  void everyMappingGivesItsIcebergTypeWithIdsDepthFirst() {
    Types.StructType order = schema(ORDER, REFERENCES).icebergType().asStructType();

    assertThat(order.toString())
        .isEqualTo(
            "struct<1: id: optional long, 2: name: optional string, 3: score: optional double,"
                + " 4: active: optional boolean, 5: born: optional date,"
                + " 6: seen: optional timestamptz, 7: status: optional string,"
                + " 8: nickname: optional string, 9: rank: optional long,"
                + " 10: address: optional struct<11: city: optional string,"
                + " 12: zip: optional string>,"
                + " 13: previous: optional struct<14: line: optional string>,"
                + " 15: customer: optional struct<16: email: optional string,"
                + " 17: vip: optional boolean>,"
                + " 18: tags: optional list<string>,"
                + " 20: scores: optional map<string, double>,"
                + " 23: lines: optional list<struct<25: sku: optional string,"
                + " 26: qty: optional long>>,"
                + " 27: extra: optional string, 28: anything: optional string,"
                + " 29: kind: optional string, 30: mixed: optional string,"
                + " 31: tree: optional struct<32: label: optional string,"
                + " 33: children: optional list<string>>>");
    assertThat(order.field("tags").type().asListType().elementId()).isEqualTo(19);
    assertThat(order.field("scores").type().asMapType().keyId()).isEqualTo(21);
    assertThat(order.field("scores").type().asMapType().valueId()).isEqualTo(22);
    assertThat(order.field("lines").type().asListType().isElementOptional()).isTrue();
  }

  @Test
  void rootsOtherThanObjectsAndFallbacks() {
    assertThat(type("{\"type\": \"integer\"}")).isEqualTo(Types.LongType.get());
    assertThat(type("true")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"null\"}")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"object\"}")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"object\", \"properties\": {}}"))
        .isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"array\"}")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"array\", \"items\": [{\"type\": \"string\"}]}"))
        .isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"array\", \"items\": true}").toString()).isEqualTo("list<string>");
    assertThat(type("{\"enum\": [1, \"a\"]}")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"integer\", \"enum\": [1, 2]}")).isEqualTo(Types.LongType.get());
    assertThat(type("{\"allOf\": [{\"type\": \"string\"}]}")).isEqualTo(Types.StringType.get());
    assertThat(type("{\"type\": \"string\", \"format\": \"email\"}"))
        .isEqualTo(Types.StringType.get());
    assertThat(type("{\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"number\"}]}"))
        .isEqualTo(Types.DoubleType.get());
    assertThat(type("{\"type\": [\"null\", \"boolean\"]}")).isEqualTo(Types.BooleanType.get());
  }

  @Test
  void referencesResolveAcrossDocumentsAndStopAtRecursion() {
    Map<String, String> references =
        Map.of(
            "shared.json",
            "{\"definitions\": {\"money\": {\"type\": \"object\", \"properties\": {"
                + "\"amount\": {\"type\": \"number\"}, \"next\": {\"$ref\": \"#/definitions/money\"},"
                + " \"rate\": {\"$ref\": \"rate.json\"}}}}}",
            "rate.json",
            "{\"type\": \"integer\"}");
    String text =
        "{\"type\": \"object\", \"properties\": {\"price\": {\"$ref\": \"shared.json#/definitions/money\"}}}";

    assertThat(schema(text, references).icebergType().toString())
        .isEqualTo(
            "struct<1: price: optional struct<2: amount: optional double,"
                + " 3: next: optional string, 4: rate: optional long>>");
  }

  @Test
  void invalidSchemasAreRefused() {
    JsonSchemaFormat format = new JsonSchemaFormat();
    for (String text :
        List.of(
            "{\"type\": \"object\"",
            "42",
            "{\"type\": \"strin\"}",
            "{\"type\": 3}",
            "{\"type\": []}",
            "{\"type\": \"object\", \"properties\": []}",
            "{\"$ref\": \"#/$defs/missing\"}",
            "{\"$ref\": \"other.json\"}",
            "{\"$ref\": 7}",
            "{\"type\": \"object\", \"properties\": {\"a\": 5}}",
            "{\"type\": \"object\", \"additionalProperties\": 5}",
            "{\"type\": \"array\", \"items\": \"string\"}")) {
      assertThatThrownBy(() -> format.writerSchema(text, Map.of(), List.of()))
          .as(text)
          .isInstanceOf(InvalidSchemaException.class);
    }
    assertThatThrownBy(
            () ->
                format.writerSchema("{\"$ref\": \"x.json\"}", Map.of("x.json", "{oops"), List.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("x.json");
    assertThatThrownBy(() -> format.writerSchema("{\"type\": \"string\"}", Map.of(), List.of(0)))
        .isInstanceOf(InvalidSchemaException.class);
  }
}
