package io.floe.rsm;

/**
 * A call ran past its bound and was given up: the key that sets the bound, the bound, what the work
 * was doing and what it was waiting on at that moment.
 */
final class CallTimeoutException extends RuntimeException {
  private final String key;

  CallTimeoutException(String key, long boundMs, String doing, String waitingOn) {
    super(
        "did not finish within "
            + key
            + "="
            + boundMs
            + " ms"
            + (doing == null ? "" : " while " + doing)
            + ", waiting on "
            + waitingOn
            + "; its work was interrupted and given up");
    this.key = key;
  }

  /** The configuration key whose bound was reached. */
  String key() {
    return key;
  }
}
