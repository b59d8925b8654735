package io.floe.tier;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Identifies one copied segment: topic, topic id, partition, the segment's base offset and its
 * remote segment id.
 */
public record SegmentKey(
    String topic, String topicId, int partition, long baseOffset, String segmentId) {
  private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9_-]+");

  public SegmentKey {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(topicId, "topicId");
    Objects.requireNonNull(segmentId, "segmentId");
    if (!SAFE_ID.matcher(segmentId).matches()) {
      throw new IllegalArgumentException("Segment id must be URL-safe, got " + segmentId);
    }
  }

  /** The folder under the table location that holds every segment's sidecar. */
  public static String sidecarFolder(String tableLocation) {
    return (tableLocation.endsWith("/") ? tableLocation : tableLocation + "/") + "floe/segments/";
  }

  /** Where the sidecar of this segment lives, under the table location. */
  public String sidecarLocation(String tableLocation) {
    return sidecarFolder(tableLocation)
        + partition
        + "/"
        + String.format("%020d", baseOffset)
        + "-"
        + segmentId
        + ".floe";
  }
}
