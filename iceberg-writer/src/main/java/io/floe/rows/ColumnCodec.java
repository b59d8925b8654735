package io.floe.rows;

import io.floe.typed.ColumnFormat;
import io.floe.typed.WriterSchemas;
import org.apache.iceberg.types.Types;

/**
 * How a table stores its keys or its values: the format, and for typed ones the writer schemas and
 * whether a writer schema the table cannot hold yet evolves it ({@code evolves}: copies) or keeps
 * the record's bytes (the head view, which never changes the table).
 */
public record ColumnCodec(ColumnFormat format, WriterSchemas schemas, boolean evolves) {
  public static final ColumnCodec BINARY = new ColumnCodec(ColumnFormat.BINARY, null, false);

  public ColumnCodec {
    if (format.typed() && schemas == null) {
      throw new IllegalArgumentException("a typed column needs its writer schemas");
    }
  }

  ValueCodec codec(Types.StructType rowType, String column) {
    return format.typed()
        ? new TypedValueCodec(rowType, column, format, schemas, evolves)
        : new BinaryValueCodec(rowType, column);
  }
}
