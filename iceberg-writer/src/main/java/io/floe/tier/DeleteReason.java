package io.floe.tier;

/**
 * Why Kafka deletes a segment, as far as the table cares: whether the rows the segment hid in other
 * copies of its offsets come back.
 */
public enum DeleteReason {
  /**
   * Kafka finished the copy and now deletes it (retention by time or size, the log start offset, an
   * unreferenced leader epoch): its offsets are gone from Kafka, so the rows it hid in other copies
   * stay hidden until those copies are deleted in turn.
   */
  EXPIRED,

  /**
   * Kafka never finished the copy (it failed, or the broker died before recording it) and cleans it
   * up: the segment never was the copy Kafka serves, so the rows it hid in other copies are visible
   * again.
   */
  COPY_ABANDONED
}
