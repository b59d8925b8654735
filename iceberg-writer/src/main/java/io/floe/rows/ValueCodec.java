package io.floe.rows;

import java.nio.ByteBuffer;
import org.apache.iceberg.StructLike;

/**
 * How a record's key or value bytes become column values of a row, and back: the seam where typed
 * key and value columns plug in. An implementation is bound to one schema (its columns' positions
 * resolved when it is made) and must give back exactly the bytes it was given.
 */
public interface ValueCodec {

  /** Sets the row's column(s) for {@code bytes}; null is a null key or value. */
  void write(byte[] bytes, StructLike row);

  /**
   * As {@link #write(byte[], StructLike)} for the bytes from the buffer's position to its limit,
   * which it does not move; the row may keep the buffer (binary columns do, uncopied).
   */
  default void write(ByteBuffer bytes, StructLike row) {
    write(RowCodec.bytes(bytes), row);
  }

  /** The bytes the row's column(s) hold, as they were written; null for a null key or value. */
  byte[] read(StructLike row);

  /** Typed payloads {@link #write} stored so far, by status; none for binary columns. */
  default PayloadCounts counts() {
    return PayloadCounts.NONE;
  }
}
