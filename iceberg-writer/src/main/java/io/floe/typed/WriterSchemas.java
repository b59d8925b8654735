package io.floe.typed;

import java.util.List;

/**
 * Where a typed column's writer schemas come from: for copy and the head view the schema registry
 * (each schema a copy uses is stored with its table), for fetch the schemas stored with the table,
 * so that Kafka consumers never depend on the registry.
 */
public interface WriterSchemas {

  /**
   * The writer schema with registry id {@code schemaId} (for Protobuf, the message at {@code
   * messageIndexes} in its file).
   *
   * @throws SchemaUnavailableException if it cannot be had now (unknown id, registry unreachable
   *     after bounded retries, a schema its format cannot read); the message is the row's reason
   */
  WriterSchema writerSchema(int schemaId, List<Integer> messageIndexes)
      throws SchemaUnavailableException;

  /**
   * The id of {@code subject}'s latest schema, for payloads written without the wire-format prefix.
   *
   * @throws SchemaUnavailableException as {@link #writerSchema}
   */
  int latestId(String subject) throws SchemaUnavailableException;
}
