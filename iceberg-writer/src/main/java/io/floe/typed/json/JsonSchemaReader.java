package io.floe.typed.json;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.typed.InvalidSchemaException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a JSON Schema (and the schemas it references) into a {@link JsonType}; see {@link
 * JsonSchemaFormat} for the mapping. Not thread-safe: one reader per schema.
 */
final class JsonSchemaReader {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final Set<String> TYPE_NAMES =
      Set.of("object", "array", "string", "integer", "number", "boolean", "null");

  private final Map<String, String> references;
  private final Map<String, JsonNode> documents = new HashMap<>();

  /** The {@code $ref} targets being read, to stop at a recursive one. */
  private final Deque<String> resolving = new ArrayDeque<>();

  JsonSchemaReader(Map<String, String> references) {
    this.references = references;
  }

  JsonType read(String text) throws InvalidSchemaException {
    JsonNode root = parse(text, "the schema");
    return type(root, "", root);
  }

  private static JsonNode parse(String text, String what) throws InvalidSchemaException {
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidSchemaException(what + " is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private JsonType type(JsonNode node, String document, JsonNode root)
      throws InvalidSchemaException {
    if (node.isBoolean()) {
      return JsonType.JSON_TEXT;
    }
    if (!node.isObject()) {
      throw new InvalidSchemaException("a schema must be an object or a boolean, not " + node);
    }
    JsonNode ref = node.get("$ref");
    if (ref != null) {
      if (!ref.isTextual()) {
        throw new InvalidSchemaException("$ref must be a string: " + ref);
      }
      return resolve(ref.textValue(), document, root);
    }
    String typeName = typeName(node.get("type"));
    if (keptAsText(node, typeName)) {
      return JsonType.JSON_TEXT;
    }
    if (isStringEnum(node.get("enum"))) {
      return typeName == null || typeName.equals("string") ? JsonType.STRING : JsonType.JSON_TEXT;
    }
    if (typeName == null) {
      JsonNode nullable = nullableAlternative(node);
      return nullable == null ? JsonType.JSON_TEXT : type(nullable, document, root);
    }
    return named(typeName, node, document, root);
  }

  /** Keywords that constrain values beyond one shape. */
  private static boolean keptAsText(JsonNode node, String typeName) {
    return node.has("const")
        || node.has("allOf")
        || node.has("if")
        || (typeName != null && (node.has("anyOf") || node.has("oneOf")));
  }

  private JsonType named(String typeName, JsonNode node, String document, JsonNode root)
      throws InvalidSchemaException {
    switch (typeName) {
      case "object":
        return object(node, document, root);
      case "array":
        return array(node, document, root);
      case "string":
        return string(node);
      case "integer":
        return JsonType.LONG;
      case "number":
        return JsonType.DOUBLE;
      case "boolean":
        return JsonType.BOOLEAN;
      default:
        return JsonType.JSON_TEXT;
    }
  }

  /** The one type {@code type} allows besides null; null when it has none, "mixed" for several. */
  private static String typeName(JsonNode type) throws InvalidSchemaException {
    if (type == null) {
      return null;
    }
    if (type.isTextual()) {
      return checkedTypeName(type);
    }
    if (!type.isArray() || type.isEmpty()) {
      throw new InvalidSchemaException("type must be a name or a non-empty array: " + type);
    }
    String only = null;
    int named = 0;
    for (JsonNode each : type) {
      String name = checkedTypeName(each);
      if (!name.equals("null")) {
        only = name;
        named++;
      }
    }
    return named == 1 ? only : "mixed";
  }

  private static String checkedTypeName(JsonNode name) throws InvalidSchemaException {
    if (!name.isTextual() || !TYPE_NAMES.contains(name.textValue())) {
      throw new InvalidSchemaException("not a JSON Schema type: " + name);
    }
    return name.textValue();
  }

  private static boolean isStringEnum(JsonNode values) {
    if (values == null || !values.isArray() || values.isEmpty()) {
      return false;
    }
    boolean anyString = false;
    for (JsonNode value : values) {
      if (!value.isTextual() && !value.isNull()) {
        return false;
      }
      anyString |= value.isTextual();
    }
    return anyString;
  }

  /** T of {@code anyOf} or {@code oneOf} [T, {"type": "null"}], in either order. */
  private static JsonNode nullableAlternative(JsonNode node) {
    JsonNode alternatives = node.has("anyOf") ? node.get("anyOf") : node.get("oneOf");
    if (alternatives == null || !alternatives.isArray() || alternatives.size() != 2) {
      return null;
    }
    JsonNode first = alternatives.get(0);
    JsonNode second = alternatives.get(1);
    if (isNullSchema(second) && !isNullSchema(first)) {
      return first;
    }
    return isNullSchema(first) && !isNullSchema(second) ? second : null;
  }

  private static boolean isNullSchema(JsonNode node) {
    JsonNode type = node.get("type");
    return node.isObject() && type != null && type.isTextual() && type.textValue().equals("null");
  }

  private JsonType object(JsonNode node, String document, JsonNode root)
      throws InvalidSchemaException {
    JsonNode properties = node.get("properties");
    if (properties != null && !properties.isObject()) {
      throw new InvalidSchemaException("properties must be an object: " + properties);
    }
    if (properties != null && !properties.isEmpty()) {
      List<String> names = new ArrayList<>();
      List<JsonType> fields = new ArrayList<>();
      for (Map.Entry<String, JsonNode> property : properties.properties()) {
        names.add(property.getKey());
        fields.add(type(property.getValue(), document, root));
      }
      return JsonType.struct(names, fields);
    }
    JsonNode additional = node.get("additionalProperties");
    if (additional != null && !additional.isObject() && !additional.isBoolean()) {
      throw new InvalidSchemaException("additionalProperties must be a schema: " + additional);
    }
    if (additional != null && additional.isObject() && !node.has("patternProperties")) {
      return JsonType.map(type(additional, document, root));
    }
    return JsonType.JSON_TEXT;
  }

  private JsonType array(JsonNode node, String document, JsonNode root)
      throws InvalidSchemaException {
    JsonNode items = node.get("items");
    if (items != null && !items.isObject() && !items.isBoolean() && !items.isArray()) {
      throw new InvalidSchemaException("items must be a schema: " + items);
    }
    if (items == null || node.has("prefixItems") || !(items.isObject() || items.isBoolean())) {
      return JsonType.JSON_TEXT;
    }
    return JsonType.list(type(items, document, root));
  }

  private static JsonType string(JsonNode node) {
    JsonNode format = node.get("format");
    String name = format != null && format.isTextual() ? format.textValue() : "";
    switch (name) {
      case "date":
        return JsonType.DATE;
      case "date-time":
        return JsonType.TIMESTAMP;
      default:
        return JsonType.STRING;
    }
  }

  private JsonType resolve(String ref, String document, JsonNode root)
      throws InvalidSchemaException {
    int hash = ref.indexOf('#');
    String base = hash < 0 ? ref : ref.substring(0, hash);
    String fragment = hash < 0 ? "" : ref.substring(hash + 1);
    String targetDocument = base.isEmpty() ? document : base;
    JsonNode targetRoot = base.isEmpty() ? root : document(base);
    if (!fragment.isEmpty() && !fragment.startsWith("/")) {
      return JsonType.JSON_TEXT; // an $anchor name: not followed, the value is kept as text
    }
    JsonNode target;
    try {
      target = targetRoot.at(JsonPointer.compile(fragment));
    } catch (IllegalArgumentException e) {
      throw new InvalidSchemaException("$ref is not a JSON pointer: " + ref, e);
    }
    if (target.isMissingNode()) {
      throw new InvalidSchemaException("$ref points at nothing: " + ref);
    }
    String key = targetDocument + "#" + fragment;
    if (resolving.contains(key)) {
      return JsonType.JSON_TEXT;
    }
    resolving.push(key);
    try {
      return type(target, targetDocument, targetRoot);
    } finally {
      resolving.pop();
    }
  }

  private JsonNode document(String name) throws InvalidSchemaException {
    JsonNode parsed = documents.get(name);
    if (parsed == null) {
      String text = references.get(name);
      if (text == null) {
        throw new InvalidSchemaException("$ref to " + name + ", which is not a reference");
      }
      parsed = parse(text, "reference " + name);
      documents.put(name, parsed);
    }
    return parsed;
  }
}
