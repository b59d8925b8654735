package io.floe.registry;

import java.util.Map;

/**
 * A schema as the registry stores it.
 *
 * @param id the registry's id, the one the wire format carries
 * @param type its format
 * @param text the schema text (Avro JSON, {@code .proto} text, JSON Schema)
 * @param references the text of every schema it references, transitively, by the name it references
 *     it with (an Avro full name, a Protobuf import path, a JSON Schema {@code $ref})
 */
public record RegistrySchema(int id, Type type, String text, Map<String, String> references) {

  /** The schema formats of the Confluent API ({@code schemaType}; absent means Avro). */
  public enum Type {
    AVRO,
    PROTOBUF,
    JSON
  }

  public RegistrySchema {
    references = Map.copyOf(references);
  }
}
