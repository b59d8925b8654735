package io.floe.maintenance;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon thread that, every interval, expires the snapshots of the tables it is given ({@link
 * SnapshotExpiry}), one table at a time. A table whose expiry fails is tried again next interval;
 * nothing else waits on this thread. {@link #close} stops it within a bounded time.
 */
public final class TableMaintenance implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableMaintenance.class);

  /** How long {@link #close} lets a running expiry finish before interrupting it. */
  static final long STOP_GRACE_MS = 5_000;

  /** What each table's expiry did, for metrics. */
  public interface Listener {
    void expired(SnapshotExpiry.Outcome outcome);

    /**
     * The expiry of {@code table} failed; it is tried again next interval. The listener logs it (as
     * a WARN): it knows how to keep credentials the cause may quote out of the log.
     */
    void failed(TableIdentifier table, RuntimeException cause);
  }

  private final long intervalMs;
  private final Supplier<Collection<TableIdentifier>> tables;
  private final Function<TableIdentifier, Table> loader;
  private final Listener listener;
  private final SnapshotExpiry expiry = new SnapshotExpiry();
  private final Thread thread;
  private final Object lock = new Object();
  private boolean closed;

  /**
   * @param tables the tables to expire, asked again each interval
   * @param loader loads a table for expiry (a fresh instance: expiry refreshes and commits it)
   */
  public TableMaintenance(
      String threadName,
      long intervalMs,
      Supplier<Collection<TableIdentifier>> tables,
      Function<TableIdentifier, Table> loader,
      Listener listener) {
    if (intervalMs <= 0) {
      throw new IllegalArgumentException("interval must be positive, got " + intervalMs);
    }
    this.intervalMs = intervalMs;
    this.tables = Objects.requireNonNull(tables, "tables");
    this.loader = Objects.requireNonNull(loader, "loader");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
  }

  public TableMaintenance start() {
    thread.start();
    return this;
  }

  private void run() {
    while (awaitNextRun()) {
      Collection<TableIdentifier> ids;
      try {
        ids = tables.get();
      } catch (RuntimeException e) {
        LOG.warn("Could not list the tables to expire snapshots of: {}", e.toString());
        continue;
      }
      for (TableIdentifier id : ids) {
        if (isClosed()) {
          return;
        }
        expire(id);
      }
    }
  }

  private void expire(TableIdentifier id) {
    try {
      SnapshotExpiry.Outcome outcome = expiry.expire(loader.apply(id));
      if (outcome.expiredSnapshots() > 0) {
        LOG.info(
            "Expired {} snapshots of {} ({} files deleted, {} kept because a live segment still"
                + " reads them)",
            outcome.expiredSnapshots(),
            outcome.table(),
            outcome.deletedFiles(),
            outcome.keptFiles());
      }
      listener.expired(outcome);
    } catch (RuntimeException e) {
      if (isClosed()) {
        LOG.debug("Snapshot expiry of {} stopped by close", id, e);
        return;
      }
      listener.failed(id, e);
    }
  }

  /** Waits one interval; false once closed. */
  private boolean awaitNextRun() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(intervalMs);
    synchronized (lock) {
      while (!closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          return false; // only close interrupts this thread
        }
      }
      return false;
    }
  }

  private boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }

  /**
   * Stops the thread: at once when it waits; a running expiry gets {@value #STOP_GRACE_MS} ms to
   * finish its commit and deletes, then is interrupted.
   */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
    }
    if (!thread.isAlive()) {
      return;
    }
    try {
      thread.join(STOP_GRACE_MS);
      if (thread.isAlive()) {
        LOG.warn("Snapshot expiry still runs after {} ms: interrupting it", STOP_GRACE_MS);
        thread.interrupt();
        thread.join(STOP_GRACE_MS);
      }
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the thread still runs: for tests. */
  boolean isRunning() {
    return thread.isAlive();
  }
}
