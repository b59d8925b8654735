package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SegmentSummaryTest {
  private static final SegmentSummary.Segment ONE =
      new SegmentSummary.Segment("TopicIdAAAAAAAAAAAAAAA", 3, 100, 199, "seg-One_1", 0, 0);
  private static final SegmentSummary.Segment TWO =
      new SegmentSummary.Segment("TopicIdAAAAAAAAAAAAAAA", 5, 40, 80, "seg-Two_2", 2, 17);

  private static Map<String, String> written(List<SegmentSummary.Segment> segments) {
    Map<String, String> summary = new HashMap<>();
    SegmentSummary.write(segments, summary::put);
    return summary;
  }

  @Test
  void oneSegmentIsWrittenInTheSingleSegmentKeysAndReadBack() {
    Map<String, String> summary = written(List.of(ONE));
    assertThat(summary)
        .containsEntry(SegmentSummary.PARTITION, "3")
        .containsEntry(SegmentSummary.START_OFFSET, "100")
        .containsEntry(SegmentSummary.END_OFFSET, "199")
        .containsEntry(SegmentSummary.SEGMENT_ID, "seg-One_1")
        .containsEntry(SegmentSummary.TOPIC_ID, "TopicIdAAAAAAAAAAAAAAA")
        .doesNotContainKeys(SegmentSummary.SEGMENTS, SegmentSummary.OVERLAPPED_FILES);
    assertThat(SegmentSummary.segmentsOf(summary)).containsExactly(ONE);
    assertThat(SegmentSummary.segmentsOf(written(List.of(TWO)))).containsExactly(TWO);
  }

  @Test
  void severalSegmentsAreListedInOrderAndReadBack() {
    Map<String, String> summary = written(List.of(ONE, TWO));
    assertThat(summary)
        .containsOnlyKeys(SegmentSummary.SEGMENTS)
        .containsEntry(
            SegmentSummary.SEGMENTS,
            "3:100:199:seg-One_1:TopicIdAAAAAAAAAAAAAAA:0:0,5:40:80:seg-Two_2:TopicIdAAAAAAAAAAAAAAA:2:17");
    assertThat(SegmentSummary.segmentsOf(summary)).containsExactly(ONE, TWO);
  }

  @Test
  void otherSnapshotsHaveNoSegmentsAndASegmentDeleteNamesItsPartition() {
    assertThat(SegmentSummary.segmentsOf(Map.of("added-records", "5"))).isEmpty();
    assertThat(SegmentSummary.segmentsOf(null)).isEmpty();
    Map<String, String> delete =
        Map.of(
            SegmentSummary.PARTITION, "4",
            SegmentSummary.SEGMENT_ID, "s",
            SegmentSummary.OPERATION, SegmentSummary.DELETE_SEGMENT);
    assertThat(SegmentSummary.segmentsOf(delete)).isEmpty();
    assertThat(SegmentSummary.deletedPartitionOf(delete)).isEqualTo(4);
    assertThat(SegmentSummary.deletedPartitionOf(written(List.of(ONE)))).isNull();
  }

  @Test
  void idsThatWouldBreakTheListAreRefusedAndNothingIsWrittenForNoSegment() {
    assertThatThrownBy(() -> new SegmentSummary.Segment("t", 0, 0, 0, "a,b", 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a,b");
    assertThatThrownBy(() -> new SegmentSummary.Segment("t:1", 0, 0, 0, "a", 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> written(List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void segmentKeysThatDoNotParseMakeTheSnapshotNoSegmentCommit() {
    assertThat(SegmentSummary.segmentsOf(Map.of(SegmentSummary.SEGMENTS, "1:2:3"))).isEmpty();
    assertThat(
            SegmentSummary.segmentsOf(
                Map.of(SegmentSummary.SEGMENTS, "3:100:199:a:t:0:0,x:1:2:b:t:0:0")))
        .isEmpty();
    assertThat(
            SegmentSummary.segmentsOf(
                Map.of(SegmentSummary.PARTITION, "three", SegmentSummary.END_OFFSET, "9")))
        .isEmpty();
    assertThat(
            SegmentSummary.deletedPartitionOf(
                Map.of(SegmentSummary.OPERATION, SegmentSummary.DELETE_SEGMENT)))
        .isNull();
    assertThat(
            SegmentSummary.deletedPartitionOf(
                Map.of(
                    SegmentSummary.OPERATION,
                    SegmentSummary.DELETE_SEGMENT,
                    SegmentSummary.PARTITION,
                    "x")))
        .isNull();
  }
}
