package io.floe.headview;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a source of batches on a thread of its own while the calling thread hands each element to a
 * sink, so that a large head build reads Kafka and writes Parquet at the same time instead of one
 * after the other. At most {@link #DEPTH} batches wait between the two. A failure on either side
 * stops the other: the source's is rethrown to the caller; the sink's stops the source at its next
 * batch.
 */
final class ReadAhead {
  /** Batches the source may hand over before the sink has taken them. */
  static final int DEPTH = 4;

  private static final long OFFER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private record Done(Object result) {}

  private record Failed(Throwable cause) {}

  /** Thrown inside the source when the caller has stopped taking batches. */
  static final class Stopped extends RuntimeException {
    Stopped() {
      super("the reader's caller stopped", null, false, false);
    }
  }

  private ReadAhead() {}

  /**
   * Runs {@code source} on {@code executor}, handing it a consumer of batches; the calling thread
   * passes every element of every batch to {@code sink}, in order, and returns the source's result.
   * The caller waits at most {@code maxWaitNanos} for each next batch (the source bounds its own
   * reads; this only guards against one that never ends), then throws what {@code onTimeout} gives.
   */
  @SuppressWarnings("unchecked")
  static <T, R> R run(
      Executor executor,
      Function<Consumer<List<T>>, R> source,
      Consumer<T> sink,
      long maxWaitNanos,
      Supplier<RuntimeException> onTimeout) {
    BlockingQueue<Object> queue = new ArrayBlockingQueue<>(DEPTH);
    AtomicBoolean stopped = new AtomicBoolean();
    executor.execute(() -> produce(queue, stopped, source));
    try {
      while (true) {
        Object next = queue.poll(maxWaitNanos, TimeUnit.NANOSECONDS);
        if (next == null) {
          stopped.set(true);
          throw onTimeout.get();
        }
        if (next instanceof Done done) {
          return (R) done.result();
        }
        if (next instanceof Failed failed) {
          throw rethrowable(failed.cause());
        }
        try {
          ((List<T>) next).forEach(sink);
        } catch (RuntimeException | Error e) {
          stopped.set(true);
          throw e;
        }
      }
    } catch (InterruptedException e) {
      stopped.set(true);
      Thread.currentThread().interrupt();
      throw new org.apache.kafka.common.errors.InterruptException(e);
    }
  }

  private static <T, R> void produce(
      BlockingQueue<Object> queue, AtomicBoolean stopped, Function<Consumer<List<T>>, R> source) {
    Object end;
    try {
      end = new Done(source.apply(batch -> hand(queue, stopped, batch)));
    } catch (Stopped e) {
      return;
    } catch (RuntimeException | Error e) {
      end = new Failed(e);
    }
    try {
      hand(queue, stopped, end);
    } catch (Stopped e) {
      // the caller has gone: nobody takes the end
    }
  }

  /** Queues {@code item}, waiting while the queue is full unless the caller has stopped. */
  private static void hand(BlockingQueue<Object> queue, AtomicBoolean stopped, Object item) {
    try {
      while (!queue.offer(item, OFFER_NANOS, TimeUnit.NANOSECONDS)) {
        if (stopped.get()) {
          throw new Stopped();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopped();
    }
  }

  private static RuntimeException rethrowable(Throwable cause) {
    if (cause instanceof Error error) {
      throw error;
    }
    return (RuntimeException) cause;
  }
}
