package io.floe.rsm;

/**
 * A call the broker cancelled: it interrupted the thread that called (Kafka cancels a partition's
 * copy when its leadership moves or the broker stops; the thread's interrupt status is then set
 * again), or the call came after the plugin was closed. The call was given up and its work
 * interrupted.
 */
final class CallCancelledException extends RuntimeException {
  CallCancelledException(String reason) {
    super(reason);
  }

  /** The broker interrupted the calling thread while the work was {@code doing}. */
  static CallCancelledException interrupted(String doing) {
    return new CallCancelledException(
        "cancelled by the broker (its thread was interrupted)"
            + (doing == null ? "" : " while " + doing));
  }
}
