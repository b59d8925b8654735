package io.floe.typed;

import org.apache.iceberg.types.Type;

/**
 * One writer schema: the Iceberg type its payloads become, and the codec between payloads and
 * values of a table column that holds that type.
 */
public interface WriterSchema {

  /**
   * The Iceberg type of this schema's payloads. Field ids are numbered from 1 in a depth-first
   * walk; the table assigns its own when the type is merged into its schema by name.
   */
  Type icebergType();

  /**
   * The codec for values of {@code columnType}: a table column made from this schema's type,
   * possibly merged by name with the types of other writer schemas of the same topic (so it may
   * have more fields, and types Iceberg promotes: int to long, float to double, a decimal of
   * greater precision). Fields are matched by name; fields this schema does not have stay null.
   * Callers pass the column's type as {@link FieldPlacement#view()} gives it, so that a field
   * placed at another name binds there; values are read and written by position.
   *
   * @throws IllegalArgumentException if {@code columnType} cannot hold this schema's values
   */
  PayloadCodec bind(Type columnType);
}
