package io.floe.typed.protobuf;

import io.floe.typed.UndecodablePayloadException;

/**
 * One value of a field (an element if the field is repeated): the value protobuf-java's {@code
 * DynamicMessage} holds to the value of its column, and back. Bound once per column type.
 */
interface ValueCodec {

  Object toColumn(Object proto) throws UndecodablePayloadException;

  /** The protobuf-java value of a column value (never null). */
  Object toProto(Object value);
}
