package io.floe.typed;

/** A payload that is not valid for its writer schema; the message says why, without the bytes. */
public final class UndecodablePayloadException extends Exception {
  private static final long serialVersionUID = 1L;

  public UndecodablePayloadException(String message) {
    super(message);
  }

  public UndecodablePayloadException(String message, Throwable cause) {
    super(message, cause);
  }
}
