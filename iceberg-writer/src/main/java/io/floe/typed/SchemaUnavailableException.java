package io.floe.typed;

/** A writer schema that cannot be had now; the message says why (never a credential). */
public final class SchemaUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  public SchemaUnavailableException(String message) {
    super(message);
  }

  public SchemaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
