package io.floe.copy;

/** A segment Floe cannot represent exactly in the table; it is refused, never half-copied. */
public class SegmentFormatException extends RuntimeException {
  public SegmentFormatException(String message) {
    super(message);
  }

  public SegmentFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
