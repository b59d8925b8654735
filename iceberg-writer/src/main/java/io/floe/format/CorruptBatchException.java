package io.floe.format;

import java.util.OptionalLong;

/**
 * A batch that cannot be read. The message names the batch's position in the segment, its base
 * offset when known, and why.
 */
public class CorruptBatchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long position;
  private final Long baseOffset;
  private final String reason;

  public CorruptBatchException(long position, OptionalLong baseOffset, String reason) {
    this(position, baseOffset, reason, null);
  }

  public CorruptBatchException(
      long position, OptionalLong baseOffset, String reason, Throwable cause) {
    super(describe(position, baseOffset, reason), cause);
    this.position = position;
    this.baseOffset = baseOffset.isPresent() ? baseOffset.getAsLong() : null;
    this.reason = reason;
  }

  static String describe(long position, OptionalLong baseOffset, String reason) {
    return "Batch at position "
        + position
        + (baseOffset.isPresent()
            ? " (base offset " + baseOffset.getAsLong() + ")"
            : " (base offset unknown)")
        + ": "
        + reason;
  }

  /** Byte position of the batch's first byte in the segment. */
  public long position() {
    return position;
  }

  public OptionalLong baseOffset() {
    return baseOffset == null ? OptionalLong.empty() : OptionalLong.of(baseOffset);
  }

  /** The reason alone, without position / offset. */
  public String reason() {
    return reason;
  }
}
