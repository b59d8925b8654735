package io.floe.rsm;

/**
 * The broker interrupted the thread that called (Kafka cancels a partition's copy when its
 * leadership moves or the broker stops): the call was given up and its work interrupted. The
 * calling thread's interrupt status is set again.
 */
final class CallCancelledException extends RuntimeException {
  CallCancelledException(String doing) {
    super(
        "cancelled by the broker (its thread was interrupted)"
            + (doing == null ? "" : " while " + doing));
  }
}
