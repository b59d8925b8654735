package io.floe.typed;

/** Where schema texts come from: the registry (copy, head view) or the table's store (fetch). */
public interface SchemaLookup {

  /**
   * The schema of id {@code schemaId}.
   *
   * @throws SchemaUnavailableException if it cannot be had now; the message says why
   */
  SchemaText byId(int schemaId) throws SchemaUnavailableException;

  /**
   * The id of {@code subject}'s latest schema.
   *
   * @throws SchemaUnavailableException if it cannot be had now; the message says why
   */
  int latestId(String subject) throws SchemaUnavailableException;
}
