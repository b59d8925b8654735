package io.floe.layout;

/**
 * The snapshot summary keys a segment commit (and a segment delete) writes: which topic, partition,
 * offsets and segment a snapshot is about. The head view reads where committed data ends from them,
 * so they are part of the table layout, not of the committer.
 */
public final class SegmentSummary {
  public static final String TOPIC_ID = "floe.topic-id";
  public static final String PARTITION = "floe.partition";
  public static final String START_OFFSET = "floe.start-offset";
  public static final String END_OFFSET = "floe.end-offset";
  public static final String SEGMENT_ID = "floe.segment-id";

  /**
   * Files of other copies of the segment's offsets, and how many of their rows the segment hides.
   */
  public static final String OVERLAPPED_FILES = "floe.overlapped-files";

  public static final String OVERLAPPED_ROWS = "floe.overlapped-rows";

  /** Set on the snapshot that takes a deleted segment's rows out of the table. */
  public static final String OPERATION = "floe.operation";

  public static final String DELETE_SEGMENT = "delete-segment";

  private SegmentSummary() {}
}
