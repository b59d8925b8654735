package io.floe.rsm;

import io.floe.copy.SegmentFormatException;
import io.floe.tier.SegmentNotFoundException;
import java.lang.reflect.Constructor;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a failed operation into the RemoteStorageException Kafka acts on: a segment Floe cannot
 * represent is refused for good (plain RemoteStorageException), a segment that is not stored is
 * {@link RemoteResourceNotFoundException}, anything else is retriable. Messages and cause chains
 * are redacted.
 *
 * <p>{@code RetriableRemoteStorageException} exists from Kafka 4.3 on; the plugin runs on older
 * brokers too, so the class is looked up at run time and retriable failures are plain
 * RemoteStorageExceptions where it is missing.
 */
final class ErrorMapper {
  // The plugin's log category before its parts had classes of their own: log configs name it.
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteStorageManager.class);
  static final String RETRIABLE_CLASS =
      "org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException";
  private static final Constructor<? extends RemoteStorageException> RETRIABLE =
      retriableConstructor(RemoteStorageException.class.getClassLoader());

  private final Redactor redactor;
  private final Constructor<? extends RemoteStorageException> retriable;

  ErrorMapper(Redactor redactor) {
    this(redactor, RETRIABLE);
  }

  /** {@code retriable} null: as on a Kafka without RetriableRemoteStorageException. */
  ErrorMapper(Redactor redactor, Constructor<? extends RemoteStorageException> retriable) {
    this.redactor = redactor;
    this.retriable = retriable;
  }

  /** Whether this broker's Kafka has RetriableRemoteStorageException (4.3+). */
  static boolean hasRetriableException() {
    return RETRIABLE != null;
  }

  RemoteStorageException copyFailed(RemoteLogSegmentMetadata segment, Exception e) {
    if (e instanceof CallTimeoutException timeout) {
      return timedOut("Copying segment " + describe(segment), timeout);
    }
    if (e instanceof SegmentFormatException || e instanceof IllegalArgumentException) {
      String message =
          "Segment " + describe(segment) + " cannot be tiered: " + redactor.redact(e.getMessage());
      LOG.error(message);
      return new RemoteStorageException(message, redactor.sanitize(e));
    }
    String message = "Copying segment " + describe(segment) + " failed: " + redactor.describe(e);
    LOG.warn(message);
    return retriable(message, e);
  }

  /**
   * The broker cancelled a copy (leadership moved, the broker stops): an expected event, logged at
   * INFO without a stack trace. Retriable: the partition's next leader copies the segment.
   */
  RemoteStorageException copyCancelled(RemoteLogSegmentMetadata segment, CallCancelledException e) {
    String message = "Copying segment " + describe(segment) + " " + e.getMessage();
    LOG.info(message);
    return retriable(message, null);
  }

  /** The broker cancelled another call: logged at DEBUG. */
  RemoteStorageException cancelled(String call, CallCancelledException e) {
    String message = call + " " + e.getMessage();
    LOG.debug(message);
    return retriable(message, null);
  }

  /** A call ran past its bound: one WARN line naming the key, no stack trace. */
  private RemoteStorageException timedOut(String call, CallTimeoutException e) {
    String message = call + " " + e.getMessage();
    LOG.warn(message);
    return retriable(message, null);
  }

  RemoteStorageException openFailed(RemoteLogSegmentMetadata segment, Exception e) {
    if (e instanceof SegmentNotFoundException) {
      return new RemoteResourceNotFoundException(
          "Segment "
              + describe(segment)
              + " is not in remote storage: "
              + redactor.redact(e.getMessage()));
    }
    return retriable(
        "Opening segment " + describe(segment) + " failed: " + redactor.describe(e), e);
  }

  /** A RemoteStorageException (the segment could not be opened) is passed on as it is. */
  RemoteStorageException fetchFailed(RemoteLogSegmentMetadata segment, int position, Exception e) {
    if (e instanceof RemoteStorageException mapped) {
      return mapped;
    }
    if (e instanceof CallTimeoutException timeout) {
      return timedOut(
          "Fetching segment " + describe(segment) + " from position " + position, timeout);
    }
    String message =
        "Fetching segment "
            + describe(segment)
            + " from position "
            + position
            + " failed: "
            + redactor.describe(e);
    LOG.warn(message);
    return retriable(message, e);
  }

  /** A RemoteStorageException (the segment could not be opened) is passed on as it is. */
  RemoteStorageException indexFetchFailed(
      RemoteLogSegmentMetadata segment, IndexType type, Exception e) {
    if (e instanceof RemoteStorageException mapped) {
      return mapped;
    }
    if (e instanceof CallTimeoutException timeout) {
      return timedOut("Fetching the " + type + " index of segment " + describe(segment), timeout);
    }
    return retriable(
        "Fetching the "
            + type
            + " index of segment "
            + describe(segment)
            + " failed: "
            + redactor.describe(e),
        e);
  }

  RemoteResourceNotFoundException noIndex(RemoteLogSegmentMetadata segment, IndexType type) {
    return new RemoteResourceNotFoundException(
        "Segment " + describe(segment) + " has no " + type + " index");
  }

  RemoteStorageException deleteFailed(RemoteLogSegmentMetadata segment, Exception e) {
    if (e instanceof CallTimeoutException timeout) {
      return timedOut("Deleting segment " + describe(segment), timeout);
    }
    String message = "Deleting segment " + describe(segment) + " failed: " + redactor.describe(e);
    LOG.warn(message);
    return retriable(message, e);
  }

  private RemoteStorageException retriable(String message, Throwable cause) {
    Throwable sanitized = redactor.sanitize(cause);
    if (retriable != null) {
      try {
        return retriable.newInstance(message, sanitized);
      } catch (ReflectiveOperationException e) {
        // fall through
      }
    }
    return new RemoteStorageException(message, sanitized);
  }

  /** A segment in messages: its id, topic partition and offsets. */
  static String describe(RemoteLogSegmentMetadata segment) {
    TopicIdPartition tp = segment.remoteLogSegmentId().topicIdPartition();
    return segment.remoteLogSegmentId().id()
        + " of "
        + tp.topic()
        + "-"
        + tp.partition()
        + " (offsets "
        + segment.startOffset()
        + ".."
        + segment.endOffset()
        + ")";
  }

  /** The constructor of RetriableRemoteStorageException as {@code loader} sees it, else null. */
  @SuppressWarnings("unchecked")
  static Constructor<? extends RemoteStorageException> retriableConstructor(ClassLoader loader) {
    try {
      Class<?> c = Class.forName(RETRIABLE_CLASS, false, loader);
      if (!RemoteStorageException.class.isAssignableFrom(c)) {
        return null;
      }
      return (Constructor<? extends RemoteStorageException>)
          c.getConstructor(String.class, Throwable.class);
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }
}
