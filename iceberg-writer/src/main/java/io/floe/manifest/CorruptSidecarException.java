package io.floe.manifest;

/**
 * A sidecar object that cannot be read: wrong magic, bad checksum, unsupported version, truncated,
 * or a section or property that a segment manifest needs is missing or malformed.
 */
public class CorruptSidecarException extends RuntimeException {
  public CorruptSidecarException(String message) {
    super(message);
  }

  public CorruptSidecarException(String message, Throwable cause) {
    super(message, cause);
  }
}
