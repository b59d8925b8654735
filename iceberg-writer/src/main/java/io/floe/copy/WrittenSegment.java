package io.floe.copy;

import io.floe.manifest.BatchDirectory;
import io.floe.rows.PayloadCounts;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * The files one segment was written to, not yet committed: data files, position deletes that hide
 * the records of transactions aborted within the segment, and the batch directory a fetch
 * re-encodes from.
 */
public record WrittenSegment(
    int partition,
    long baseOffset,
    long lastOffset,
    List<DataFile> dataFiles,
    List<DeleteFile> deleteFiles,
    BatchDirectory directory,
    long records,
    long hiddenRecords,
    long segmentBytes,
    PayloadCounts payloads) {

  public boolean isEmpty() {
    return directory.size() == 0;
  }
}
