package io.floe.typed;

import java.util.List;
import java.util.Map;

/**
 * A payload format whose schemas come from a schema registry (Avro, Protobuf, JSON Schema): how a
 * registry schema becomes the {@link WriterSchema} of the payloads written with it.
 */
public interface SchemaFormat {

  /**
   * The writer schema of a registry schema.
   *
   * @param text the schema as the registry returns it (Avro JSON, {@code .proto} text, JSON Schema)
   * @param references the text of every schema it references, by the name it references it with
   *     (transitively; empty when it references none)
   * @param messageIndexes Protobuf only: the path of the message type in the file, as the wire
   *     format gives it (empty for the first message); empty for the other formats
   * @throws InvalidSchemaException if the text is not a schema of this format, or names a message
   *     the file does not have
   */
  WriterSchema writerSchema(
      String text, Map<String, String> references, List<Integer> messageIndexes)
      throws InvalidSchemaException;
}
