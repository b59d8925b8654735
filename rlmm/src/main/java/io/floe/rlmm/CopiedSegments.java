package io.floe.rlmm;

import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/**
 * Finds the copied segment that holds an offset of a leader epoch by looking at every segment of a
 * partition, where Kafka's own lookup looks only at the segment with the greatest start offset at
 * or below the offset (and so misses the offset when that segment ends before it while another
 * copied segment holds it).
 */
final class CopiedSegments {
  private CopiedSegments() {}

  /**
   * Which segment serves when several hold the offset: the one reaching furthest, then the newest.
   */
  private static final Comparator<RemoteLogSegmentMetadata> PREFERRED =
      Comparator.comparingLong(RemoteLogSegmentMetadata::endOffset)
          .thenComparingLong(RemoteLogSegmentMetadata::eventTimestampMs)
          .thenComparing(m -> m.remoteLogSegmentId().id().toString());

  /**
   * The {@link RemoteLogSegmentState#COPY_SEGMENT_FINISHED} segment among {@code segments} that
   * holds {@code offset} within its records of {@code leaderEpoch} (the check Kafka's own lookup
   * makes on the one segment it looks at), or empty.
   */
  static Optional<RemoteLogSegmentMetadata> holding(
      Iterator<RemoteLogSegmentMetadata> segments, int leaderEpoch, long offset) {
    RemoteLogSegmentMetadata best = null;
    while (segments.hasNext()) {
      RemoteLogSegmentMetadata m = segments.next();
      if (m.state() == RemoteLogSegmentState.COPY_SEGMENT_FINISHED
          && holds(m, leaderEpoch, offset)
          && (best == null || PREFERRED.compare(m, best) > 0)) {
        best = m;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Whether {@code offset} is among the segment's records written in {@code leaderEpoch}. */
  static boolean holds(RemoteLogSegmentMetadata m, int leaderEpoch, long offset) {
    Long epochStart = m.segmentLeaderEpochs().get(leaderEpoch);
    if (epochStart == null || offset < Math.max(epochStart, m.startOffset())) {
      return false;
    }
    Map.Entry<Integer, Long> next = m.segmentLeaderEpochs().higherEntry(leaderEpoch);
    long epochEnd = next == null ? m.endOffset() : next.getValue() - 1;
    return offset <= epochEnd;
  }
}
