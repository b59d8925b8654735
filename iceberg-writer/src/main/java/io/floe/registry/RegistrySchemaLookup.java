package io.floe.registry;

import io.floe.typed.ColumnFormat;
import io.floe.typed.SchemaLookup;
import io.floe.typed.SchemaText;
import io.floe.typed.SchemaUnavailableException;

/**
 * Writer schemas from the schema registry, for copies and the head view; every failure (unknown id
 * or subject, registry unreachable within its bound, credentials refused) becomes the reason a
 * record keeps its bytes.
 */
public final class RegistrySchemaLookup implements SchemaLookup {
  private final SchemaRegistryClient client;

  public RegistrySchemaLookup(SchemaRegistryClient client) {
    this.client = client;
  }

  @Override
  public SchemaText byId(int schemaId) throws SchemaUnavailableException {
    try {
      return text(client.byId(schemaId));
    } catch (SchemaNotFoundException e) {
      throw new SchemaUnavailableException("schema id " + schemaId + " is unknown to the registry");
    } catch (RegistryException e) {
      throw new SchemaUnavailableException(
          "schema id " + schemaId + " could not be looked up: " + e.getMessage(), e);
    }
  }

  @Override
  public int latestId(String subject) throws SchemaUnavailableException {
    try {
      return client.latest(subject).id();
    } catch (SchemaNotFoundException e) {
      throw new SchemaUnavailableException("subject " + subject + " is unknown to the registry");
    } catch (RegistryException e) {
      throw new SchemaUnavailableException(
          "the latest schema of subject " + subject + " could not be looked up: " + e.getMessage(),
          e);
    }
  }

  private static SchemaText text(RegistrySchema schema) {
    ColumnFormat.Format format =
        switch (schema.type()) {
          case AVRO -> ColumnFormat.Format.AVRO;
          case PROTOBUF -> ColumnFormat.Format.PROTOBUF;
          case JSON -> ColumnFormat.Format.JSON_SCHEMA;
        };
    return new SchemaText(schema.id(), format, schema.text(), schema.references());
  }
}
