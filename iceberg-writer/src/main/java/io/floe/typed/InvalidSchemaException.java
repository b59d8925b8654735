package io.floe.typed;

/** A registry schema that is not a schema of its format (or names a message its file lacks). */
public final class InvalidSchemaException extends Exception {
  private static final long serialVersionUID = 1L;

  public InvalidSchemaException(String message) {
    super(message);
  }

  public InvalidSchemaException(String message, Throwable cause) {
    super(message, cause);
  }
}
