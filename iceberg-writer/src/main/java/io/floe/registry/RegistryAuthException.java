package io.floe.registry;

/** The registry refused the configured credentials (HTTP 401 or 403). Never retried. */
public final class RegistryAuthException extends RegistryException {
  private static final long serialVersionUID = 1L;

  public RegistryAuthException(String message) {
    super(message);
  }
}
