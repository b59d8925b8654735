package io.floe.fetch;

import java.io.IOException;
import org.apache.iceberg.data.Record;

/** Rows in offset order, read by one thread at a time. */
interface RowSource extends AutoCloseable {
  /**
   * The next row, or null after the last.
   *
   * @throws IOException when the rows cannot be read
   */
  Record next() throws IOException;

  /** Releases what the rows are read from; never fails. */
  @Override
  void close();
}
