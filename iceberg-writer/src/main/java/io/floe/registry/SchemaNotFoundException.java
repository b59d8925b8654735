package io.floe.registry;

/**
 * The registry has no such schema id, subject or version (HTTP 404, error codes 40401, 40402,
 * 40403). Permanent: never retried.
 */
public final class SchemaNotFoundException extends RegistryException {
  private static final long serialVersionUID = 1L;

  public SchemaNotFoundException(String message) {
    super(message);
  }
}
