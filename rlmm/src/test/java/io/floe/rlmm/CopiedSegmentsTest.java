package io.floe.rlmm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.junit.jupiter.api.Test;

class CopiedSegmentsTest {
  private static final TopicIdPartition TP = new TopicIdPartition(Uuid.randomUuid(), 0, "t");

  @Test
  void findsTheCopiedSegmentHoldingAnOffsetPastTheEndOfTheOneStartingNearestBelowIt() {
    // A demoted leader's 35..63 finished after its successor's 28..79
    RemoteLogSegmentMetadata successor = finished(28, 79, Map.of(0, 28L, 1, 70L), 1);
    RemoteLogSegmentMetadata demoted = finished(35, 63, Map.of(0, 35L), 2);

    assertThat(holding(List.of(demoted, successor), 0, 64)).contains(successor);
    assertThat(holding(List.of(demoted, successor), 1, 75)).contains(successor);
  }

  @Test
  void checksTheOffsetAgainstTheRecordsOfItsLeaderEpoch() {
    RemoteLogSegmentMetadata s = finished(28, 79, Map.of(0, 28L, 1, 70L), 1);

    assertThat(holding(List.of(s), 0, 69)).contains(s);
    assertThat(holding(List.of(s), 0, 70)).as("offset 70 was written in epoch 1").isEmpty();
    assertThat(holding(List.of(s), 1, 69)).as("offset 69 was written in epoch 0").isEmpty();
    assertThat(holding(List.of(s), 1, 80)).as("past the segment").isEmpty();
    assertThat(holding(List.of(s), 2, 75)).as("an epoch the segment has no records of").isEmpty();
    assertThat(holding(List.of(s), 0, 27)).as("before the segment").isEmpty();
  }

  @Test
  void onlyFinishedCopiesServe() {
    RemoteLogSegmentMetadata started = segment(0, 99, Map.of(0, 0L), 1, null);
    RemoteLogSegmentMetadata deleting =
        segment(0, 99, Map.of(0, 0L), 1, RemoteLogSegmentState.DELETE_SEGMENT_STARTED);

    assertThat(holding(List.of(started, deleting), 0, 50)).isEmpty();
  }

  @Test
  void prefersTheSegmentReachingFurthestThenTheNewest() {
    RemoteLogSegmentMetadata shorter = finished(100, 149, Map.of(3, 100L), 1);
    RemoteLogSegmentMetadata longer = finished(100, 150, Map.of(3, 100L), 2);
    RemoteLogSegmentMetadata older =
        segment(90, 150, Map.of(3, 90L), 3, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 5);
    RemoteLogSegmentMetadata newer =
        segment(90, 150, Map.of(3, 90L), 4, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 6);

    assertThat(holding(List.of(longer, shorter), 3, 120)).contains(longer);
    assertThat(holding(List.of(shorter, longer), 3, 120)).contains(longer);
    assertThat(holding(List.of(newer, older), 3, 95)).map(m -> m.brokerId()).contains(4);
    assertThat(holding(List.of(older, newer), 3, 95)).map(m -> m.brokerId()).contains(4);
  }

  private static Optional<RemoteLogSegmentMetadata> holding(
      List<RemoteLogSegmentMetadata> segments, int epoch, long offset) {
    return CopiedSegments.holding(segments.iterator(), epoch, offset);
  }

  private static RemoteLogSegmentMetadata finished(
      long start, long end, Map<Integer, Long> epochs, int broker) {
    return segment(start, end, epochs, broker, RemoteLogSegmentState.COPY_SEGMENT_FINISHED);
  }

  private static RemoteLogSegmentMetadata segment(
      long start, long end, Map<Integer, Long> epochs, int broker, RemoteLogSegmentState state) {
    return segment(start, end, epochs, broker, state, 1);
  }

  /** A segment in {@code state} (null: just started), its last event at {@code eventTime}. */
  private static RemoteLogSegmentMetadata segment(
      long start,
      long end,
      Map<Integer, Long> epochs,
      int broker,
      RemoteLogSegmentState state,
      long eventTime) {
    RemoteLogSegmentMetadata m =
        new RemoteLogSegmentMetadata(
            new RemoteLogSegmentId(TP, Uuid.randomUuid()),
            start,
            end,
            eventTime,
            broker,
            eventTime,
            1024,
            new TreeMap<>(epochs));
    return state == null
        ? m
        : m.createWithUpdates(
            new RemoteLogSegmentMetadataUpdate(
                m.remoteLogSegmentId(), eventTime, Optional.empty(), state, broker));
  }
}
