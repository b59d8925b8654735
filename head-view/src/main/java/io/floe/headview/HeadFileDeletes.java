package io.floe.headview;

import java.util.List;
import java.util.function.IntConsumer;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;

/**
 * Deletes head files. On stop, in batches of {@link #BATCH} where the FileIO deletes in bulk (one
 * S3 DeleteObjects request per batch), checking a deadline between requests. Otherwise one by one
 * on the calling thread: S3FileIO runs bulk deletes on its own pool, whose threads the JVM waits
 * for (up to 10 s) when it exits, and a background delete running when the service is stopped must
 * not hold up the exit.
 */
final class HeadFileDeletes {
  /** S3FileIO's own batch size: one request per batch. */
  static final int BATCH = 250;

  /**
   * What a delete did: how many files it deleted, how many it did not (failed, or not tried once
   * the deadline was over or the store had failed), and the first failure.
   */
  record Outcome(int deleted, int left, RuntimeException failure) {}

  private HeadFileDeletes() {}

  /** Deletes every location, one by one, whatever fails. */
  static Outcome deleteAll(FileIO io, List<String> locations) {
    int deleted = 0;
    RuntimeException failure = null;
    for (String location : locations) {
      try {
        io.deleteFile(location);
        deleted++;
      } catch (RuntimeException e) {
        failure = failure != null ? failure : e;
      }
    }
    return new Outcome(deleted, locations.size() - deleted, failure);
  }

  /**
   * Deletes locations until {@code deadlineNanos} ({@link System#nanoTime()} time) is over, or
   * until a request deletes nothing (the object store is failing: the rest would fail too). The
   * first file goes alone: a bulk failure tells only how many files failed, a single delete why.
   * {@code progress} hears of each request's deleted count as it ends.
   */
  static Outcome deleteUntil(
      FileIO io, List<String> locations, long deadlineNanos, IntConsumer progress) {
    boolean bulk = io instanceof SupportsBulkOperations;
    int deleted = 0;
    RuntimeException failure = null;
    int step;
    for (int i = 0; i < locations.size(); i += step) {
      if (System.nanoTime() - deadlineNanos >= 0) {
        break;
      }
      step = bulk && i > 0 ? BATCH : 1;
      List<String> chunk = locations.subList(i, Math.min(locations.size(), i + step));
      int done;
      try {
        if (step > 1) {
          ((SupportsBulkOperations) io).deleteFiles(chunk);
        } else {
          io.deleteFile(chunk.get(0));
        }
        done = chunk.size();
      } catch (BulkDeletionFailureException e) {
        done = chunk.size() - e.numberFailedObjects();
        failure = failure != null ? failure : e;
      } catch (RuntimeException e) {
        done = 0;
        failure = failure != null ? failure : e;
      }
      deleted += done;
      progress.accept(done);
      if (done == 0) {
        break;
      }
    }
    return new Outcome(deleted, locations.size() - deleted, failure);
  }
}
