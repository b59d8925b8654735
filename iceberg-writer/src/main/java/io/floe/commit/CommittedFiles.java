package io.floe.commit;

import io.floe.format.OffsetRange;
import java.util.List;
import org.apache.iceberg.DataFile;

/** What {@link CommitPlanner} reads of a table, as of the snapshot it plans against. */
interface CommittedFiles {

  /** Calls back with each row of a data file, in row order. */
  @FunctionalInterface
  interface RowVisitor {
    void row(int partition, long offset, long producerId);
  }

  /** The live data files of {@code partition} that may hold offsets in [from, to]. */
  List<DataFile> inRange(int partition, long from, long to);

  /** The file's first and last offset from its column bounds; null when it has none. */
  OffsetRange boundsOf(DataFile file);

  /**
   * The Kafka partition of all the file's rows, as its metadata tells it; null when it does not (an
   * engine may have written rows of several partitions into one file).
   */
  Integer partitionOf(DataFile file);

  /** Reads the Kafka partition, offset and producer id of each row of the file. */
  void readRows(DataFile file, RowVisitor visitor);
}
