package io.floe.rows;

import io.floe.typed.ColumnFormat;
import io.floe.typed.WriterSchemas;
import org.apache.iceberg.types.Types;

/** How a table stores its keys or its values: the format, and for typed ones the writer schemas. */
public record ColumnCodec(ColumnFormat format, WriterSchemas schemas) {
  public static final ColumnCodec BINARY = new ColumnCodec(ColumnFormat.BINARY, null);

  public ColumnCodec {
    if (format.typed() && schemas == null) {
      throw new IllegalArgumentException("a typed column needs its writer schemas");
    }
  }

  ValueCodec codec(Types.StructType rowType, String column) {
    return format.typed()
        ? new TypedValueCodec(rowType, column, format, schemas)
        : new BinaryValueCodec(rowType, column);
  }
}
