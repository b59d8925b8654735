package io.floe.typed.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.WriterSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** A JSON Schema with every mapping, and helpers shared by the JSON Schema tests. */
final class JsonFixtures {

  private JsonFixtures() {}

  static final String CUSTOMER =
      "{\"type\": \"object\", \"properties\": {"
          + "\"email\": {\"type\": \"string\"}, \"vip\": {\"type\": \"boolean\"}}}";

  /** Every mapping: scalars, formats, nullables, refs, list, map, JSON text, recursion. */
  static final String ORDER =
      String.join(
          "\n",
          "{",
          "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",",
          "  \"type\": \"object\",",
          "  \"properties\": {",
          "    \"id\": {\"type\": \"integer\"},",
          "    \"name\": {\"type\": \"string\"},",
          "    \"score\": {\"type\": \"number\"},",
          "    \"active\": {\"type\": \"boolean\"},",
          "    \"born\": {\"type\": \"string\", \"format\": \"date\"},",
          "    \"seen\": {\"type\": \"string\", \"format\": \"date-time\"},",
          "    \"status\": {\"enum\": [\"NEW\", \"DONE\"]},",
          "    \"nickname\": {\"type\": [\"string\", \"null\"]},",
          "    \"rank\": {\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"null\"}]},",
          "    \"address\": {\"$ref\": \"#/$defs/address\"},",
          "    \"previous\": {\"oneOf\": [{\"type\": \"null\"}, {\"$ref\": \"#/definitions/legacy\"}]},",
          "    \"customer\": {\"$ref\": \"customer.json\"},",
          "    \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}},",
          "    \"scores\": {\"type\": \"object\", \"additionalProperties\": {\"type\": \"number\"}},",
          "    \"lines\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {",
          "      \"sku\": {\"type\": \"string\"}, \"qty\": {\"type\": \"integer\"}}}},",
          "    \"extra\": {\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]},",
          "    \"anything\": {},",
          "    \"kind\": {\"const\": \"order\"},",
          "    \"mixed\": {\"type\": [\"string\", \"number\"]},",
          "    \"tree\": {\"$ref\": \"#/$defs/node\"}",
          "  },",
          "  \"$defs\": {",
          "    \"address\": {\"type\": \"object\", \"properties\": {",
          "      \"city\": {\"type\": \"string\"}, \"zip\": {\"type\": \"string\"}}},",
          "    \"node\": {\"type\": \"object\", \"properties\": {",
          "      \"label\": {\"type\": \"string\"},",
          "      \"children\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/node\"}}}}",
          "  },",
          "  \"definitions\": {",
          "    \"legacy\": {\"type\": \"object\", \"properties\": {\"line\": {\"type\": \"string\"}}}",
          "  }",
          "}");

  static final Map<String, String> REFERENCES = Map.of("customer.json", CUSTOMER);

  /** Random orders as JSON.stringify wrote them (node running js-orders.js), one a line. */
  static List<String> javaScriptOrders() {
    try (InputStream in = JsonFixtures.class.getResourceAsStream("js-orders.jsonl")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static WriterSchema schema(String text, Map<String, String> references) {
    try {
      return new JsonSchemaFormat().writerSchema(text, references, List.of());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static PayloadCodec order() {
    WriterSchema schema = schema(ORDER, REFERENCES);
    return schema.bind(schema.icebergType());
  }

  static PayloadCodec codec(String text) {
    WriterSchema schema = schema(text, Map.of());
    return schema.bind(schema.icebergType());
  }

  static Object decode(PayloadCodec codec, String payload) throws UndecodablePayloadException {
    return codec.decode(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)));
  }

  static String encode(PayloadCodec codec, Object value) {
    return new String(codec.encode(value), StandardCharsets.UTF_8);
  }

  /** Decodes and re-encodes; asserts the bytes come back exactly. Returns the value. */
  static Object assertExact(PayloadCodec codec, String payload) throws UndecodablePayloadException {
    Object value = decode(codec, payload);
    assertThat(encode(codec, value)).isEqualTo(payload);
    assertThat(codec.encode(value)).isEqualTo(payload.getBytes(StandardCharsets.UTF_8));
    return value;
  }
}
