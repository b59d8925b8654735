package io.floe.format;

/** Attributes bit 3 of a v2 batch. */
public enum TimestampType {
  CREATE_TIME,
  LOG_APPEND_TIME
}
