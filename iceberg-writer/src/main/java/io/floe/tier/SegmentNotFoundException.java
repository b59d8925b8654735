package io.floe.tier;

/** The segment asked for is not stored (never copied, or deleted). */
public class SegmentNotFoundException extends RuntimeException {
  public SegmentNotFoundException(String message) {
    super(message);
  }
}
