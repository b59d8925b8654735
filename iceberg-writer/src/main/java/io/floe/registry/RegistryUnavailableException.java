package io.floe.registry;

/**
 * The registry could not answer: connection refused or reset, timeout, HTTP 5xx or 429 after the
 * configured retries, or a lookup made during the cooldown that follows such a failure (then the
 * registry was not contacted). Transient: a later lookup may succeed.
 */
public final class RegistryUnavailableException extends RegistryException {
  private static final long serialVersionUID = 1L;

  public RegistryUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
