package io.floe.registry;

/**
 * A schema lookup that failed. Its message names the registry URL and never a credential nor the
 * user info of a URL.
 */
public class RegistryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RegistryException(String message) {
    super(message);
  }

  public RegistryException(String message, Throwable cause) {
    super(message, cause);
  }
}
