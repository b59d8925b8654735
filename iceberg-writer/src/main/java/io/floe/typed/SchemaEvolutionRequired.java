package io.floe.typed;

import org.apache.iceberg.types.Type;

/**
 * A record whose writer schema the table's column cannot hold yet: the copy evolves the table's
 * schema by the writer schema's type (by name, Iceberg's rules) and writes the segment again.
 */
public final class SchemaEvolutionRequired extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String column;
  private final int schemaId;
  private final transient Type writerType;

  public SchemaEvolutionRequired(String column, int schemaId, Type writerType) {
    super("column '" + column + "' cannot hold values of writer schema " + schemaId + " yet");
    this.column = column;
    this.schemaId = schemaId;
    this.writerType = writerType;
  }

  /** The typed column: {@code key} or {@code value}. */
  public String column() {
    return column;
  }

  /** The registry id of the writer schema. */
  public int schemaId() {
    return schemaId;
  }

  /** The Iceberg type of the writer schema the column must hold. */
  public Type writerType() {
    return writerType;
  }
}
