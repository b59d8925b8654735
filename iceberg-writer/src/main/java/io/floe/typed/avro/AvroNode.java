package io.floe.typed.avro;

import io.floe.typed.UndecodablePayloadException;

/**
 * One Avro schema bound to one column type: reads a value of the column from Avro binary and writes
 * a column value back as canonical Avro binary. Nodes are built once per bound column and hold no
 * per-record state, so one node tree serves every record and every thread.
 */
abstract class AvroNode {

  abstract Object read(BinaryInput in) throws UndecodablePayloadException;

  /**
   * @throws IllegalArgumentException if {@code value} is not a value of this node's column
   */
  abstract void write(Object value, BinaryOutput out);

  /** The fewest bytes a value takes, to bound block counts by the bytes left. */
  int minBytes() {
    return 1;
  }

  static IllegalArgumentException notAValue(Object value, String of) {
    String type = value == null ? "null" : value.getClass().getSimpleName();
    return new IllegalArgumentException("a " + type + " is not a value of " + of);
  }
}
