package io.floe.rows;

import java.nio.ByteBuffer;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Types;

/** Keys or values stored as they are, in one binary column. */
public final class BinaryValueCodec implements ValueCodec {
  private final int position;

  /** The codec of the binary column {@code column} of rows of {@code rowType}. */
  public BinaryValueCodec(Types.StructType rowType, String column) {
    this.position = RowCodec.positionOf(rowType, column);
  }

  @Override
  public void write(byte[] bytes, StructLike row) {
    row.set(position, bytes == null ? null : ByteBuffer.wrap(bytes));
  }

  @Override
  public void write(ByteBuffer bytes, StructLike row) {
    row.set(position, bytes);
  }

  @Override
  public byte[] read(StructLike row) {
    return RowCodec.bytes(row.get(position, ByteBuffer.class));
  }
}
