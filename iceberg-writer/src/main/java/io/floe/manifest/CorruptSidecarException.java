package io.floe.manifest;

/**
 * A sidecar object that cannot be read: wrong magic, bad checksum, unsupported version or
 * truncated.
 */
public class CorruptSidecarException extends RuntimeException {
  public CorruptSidecarException(String message) {
    super(message);
  }
}
