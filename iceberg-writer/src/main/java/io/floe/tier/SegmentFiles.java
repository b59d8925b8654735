package io.floe.tier;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A rolled log segment as the broker hands it over: the log file plus the files Kafka keeps beside
 * it. Optional parts are null when absent.
 */
public record SegmentFiles(
    Path log,
    long baseOffset,
    ByteBuffer timeIndex,
    ByteBuffer transactionIndex,
    ByteBuffer producerSnapshot,
    ByteBuffer leaderEpochCheckpoint) {

  public SegmentFiles {
    Objects.requireNonNull(log, "log");
  }

  public static SegmentFiles of(Path log, long baseOffset) {
    return new SegmentFiles(log, baseOffset, null, null, null, null);
  }
}
