package io.floe.typed;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * The writer schemas a table's rows use, stored with the table so that fetch never needs the
 * registry: one immutable object per schema id and column, {@code
 * <table>/floe/schemas/<column>/<id>.json}, written by the first copy that uses the schema, before
 * its commit.
 */
public final class StoredSchemas implements SchemaLookup {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileIO io;
  private final String folder;

  /**
   * The schemas of {@code column} ({@code key} or {@code value}) of the table at {@code location}.
   */
  public StoredSchemas(FileIO io, String tableLocation, String column) {
    this.io = io;
    this.folder = folder(tableLocation) + column + "/";
  }

  /** The folder under a table location that holds its stored schemas. */
  public static String folder(String tableLocation) {
    return (tableLocation.endsWith("/") ? tableLocation : tableLocation + "/") + "floe/schemas/";
  }

  public String location(int schemaId) {
    return folder + schemaId + ".json";
  }

  /**
   * Stores {@code schema} unless it is stored already; a stored schema of the same id with other
   * content (the table's topic moved to another registry) is an error, never overwritten.
   */
  public void store(SchemaText schema) throws SchemaUnavailableException {
    SchemaText stored = load(schema.id());
    if (stored == null) {
      try (OutputStream out = io.newOutputFile(location(schema.id())).create()) {
        JSON.writeValue(out, toJson(schema));
        return;
      } catch (AlreadyExistsException raced) {
        stored = load(schema.id());
      } catch (IOException e) {
        throw new UncheckedIOException("Storing schema " + schema.id() + " failed", e);
      }
    }
    if (!stored.equals(schema)) {
      throw new SchemaUnavailableException(
          "schema id "
              + schema.id()
              + " in the registry differs from the schema of that id the table stores at "
              + location(schema.id())
              + " (was the topic moved to another registry?)");
    }
  }

  /** The stored schema of id {@code schemaId}, or null if the table stores none. */
  public SchemaText load(int schemaId) {
    InputFile file = io.newInputFile(location(schemaId));
    try (InputStream in = file.newStream()) {
      Map<String, Object> json = JSON.readValue(in, new TypeReference<Map<String, Object>>() {});
      @SuppressWarnings("unchecked")
      Map<String, String> references = (Map<String, String>) json.get("references");
      return new SchemaText(
          schemaId,
          ColumnFormat.Format.parse((String) json.get("format")),
          (String) json.get("schema"),
          references == null ? Map.of() : references);
    } catch (NotFoundException e) {
      return null;
    } catch (IOException e) {
      if (!file.exists()) {
        return null;
      }
      throw new UncheckedIOException("Reading stored schema " + location(schemaId) + " failed", e);
    }
  }

  /** The stored schema of id {@code schemaId}; fetch reads a table's schemas only from here. */
  @Override
  public SchemaText byId(int schemaId) throws SchemaUnavailableException {
    SchemaText schema = load(schemaId);
    if (schema == null) {
      throw new SchemaUnavailableException(
          "the table stores no schema " + schemaId + " (" + location(schemaId) + ")");
    }
    return schema;
  }

  /** Stored schemas answer by id only: rows record the id of their writer schema. */
  @Override
  public int latestId(String subject) throws SchemaUnavailableException {
    throw new SchemaUnavailableException(
        "the latest schema of " + subject + " comes from the registry, not from the table");
  }

  private static Map<String, Object> toJson(SchemaText schema) {
    Map<String, Object> json = new TreeMap<>();
    json.put("id", schema.id());
    json.put("format", schema.format().configName());
    json.put("schema", schema.text());
    json.put("references", new TreeMap<>(schema.references()));
    return json;
  }
}
