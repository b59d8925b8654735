package io.floe.typed;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writer schemas of one typed column: schema texts from a {@link SchemaLookup}, parsed by the
 * column's {@link SchemaFormat} once per id and message path.
 */
public final class ParsedWriterSchemas implements WriterSchemas {
  private final ColumnFormat.Format format;
  private final SchemaFormat schemaFormat;
  private final SchemaLookup lookup;
  private final Map<Key, WriterSchema> parsed = new ConcurrentHashMap<>();

  public ParsedWriterSchemas(
      ColumnFormat.Format format, SchemaFormat schemaFormat, SchemaLookup lookup) {
    this.format = format;
    this.schemaFormat = schemaFormat;
    this.lookup = lookup;
  }

  @Override
  public WriterSchema writerSchema(int schemaId, List<Integer> messageIndexes)
      throws SchemaUnavailableException {
    Key key = new Key(schemaId, messageIndexes);
    WriterSchema schema = parsed.get(key);
    if (schema == null) {
      SchemaText text = lookup.byId(schemaId);
      if (text.format() != format) {
        throw new SchemaUnavailableException(
            "schema "
                + schemaId
                + " is "
                + text.format().configName()
                + ", the column's format is "
                + format.configName());
      }
      try {
        schema = schemaFormat.writerSchema(text.text(), text.references(), messageIndexes);
      } catch (InvalidSchemaException e) {
        throw new SchemaUnavailableException(
            "schema "
                + schemaId
                + " cannot be read as "
                + format.configName()
                + ": "
                + e.getMessage(),
            e);
      }
      parsed.put(key, schema);
    }
    return schema;
  }

  @Override
  public int latestId(String subject) throws SchemaUnavailableException {
    return lookup.latestId(subject);
  }

  private record Key(int schemaId, List<Integer> messageIndexes) {}
}
