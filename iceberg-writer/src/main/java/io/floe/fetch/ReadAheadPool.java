package io.floe.fetch;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that read fetches' rows ahead of the batches being re-encoded ({@link RowsAhead}),
 * shared by a broker's fetches: daemon threads named {@code floe-fetch-rows-<n>}, started when a
 * fetch needs one and ended after a minute without work. Off, every fetch reads its own rows.
 */
public final class ReadAheadPool implements AutoCloseable {
  private static final ReadAheadPool OFF = new ReadAheadPool(0);

  private static final ReadAheadPool SHARED = new ReadAheadPool(-1);

  private final ThreadPoolExecutor pool;

  private ReadAheadPool(int threads) {
    int size = threads < 0 ? Runtime.getRuntime().availableProcessors() : threads;
    if (size == 0) {
      this.pool = null;
      return;
    }
    AtomicInteger started = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            size,
            size,
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread t = new Thread(task, "floe-fetch-rows-" + started.incrementAndGet());
              t.setDaemon(true);
              // not whichever loader the fetch thread that started it had: the plugin's own
              t.setContextClassLoader(ReadAheadPool.class.getClassLoader());
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /** No read-ahead: each fetch reads its rows on its own thread. */
  public static ReadAheadPool off() {
    return OFF;
  }

  /** {@code threads} threads; 0 is {@link #off()}, below 0 one per processor. */
  public static ReadAheadPool of(int threads) {
    return threads == 0 ? OFF : new ReadAheadPool(threads);
  }

  /** One thread per processor, shared by every user of it (tools, tests); never closed. */
  public static ReadAheadPool shared() {
    return SHARED;
  }

  /** How many threads it may run (0 when off). */
  public int threads() {
    return pool == null ? 0 : pool.getMaximumPoolSize();
  }

  /** Runs {@code task} on a pool thread; false, and nothing run, when off or closed. */
  boolean offer(Runnable task) {
    if (pool == null) {
      return false;
    }
    try {
      pool.execute(task);
      return true;
    } catch (RejectedExecutionException closed) {
      return false;
    }
  }

  /** Stops its threads once their units are read; fetches still open read their own rows. */
  @Override
  public void close() {
    if (pool != null && this != SHARED) {
      pool.shutdown();
    }
  }
}
