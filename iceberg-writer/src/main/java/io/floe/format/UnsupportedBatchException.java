package io.floe.format;

import java.util.OptionalLong;

/**
 * A well-formed batch this codec does not support: magic 0/1, unknown codec id, non-zero record
 * attributes.
 */
public class UnsupportedBatchException extends CorruptBatchException {
  private static final long serialVersionUID = 1L;

  public UnsupportedBatchException(long position, OptionalLong baseOffset, String reason) {
    super(position, baseOffset, reason);
  }
}
