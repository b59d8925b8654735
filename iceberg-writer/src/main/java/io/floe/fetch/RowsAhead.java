package io.floe.fetch;

import io.floe.manifest.BatchDirectory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.data.Record;

/**
 * The rows of a fetch's batches, read from the data files a unit of batches ahead on a {@link
 * ReadAheadPool} while the fetch thread re-encodes the unit before, so that a consumer catching up
 * from the tier has Parquet decoding and batch encoding on two cores. A unit is the batches that
 * hold {@link #UNIT_RECORDS} records or {@link #UNIT_BYTES} bytes in the log (at least one batch):
 * at most one unit is read ahead, so a fetch holds the rows of two units at most. When no pool
 * thread has taken the next unit by the time the fetch needs it (every one busy with other fetches,
 * or the pool off), the fetch thread reads it itself: it never waits behind other fetches.
 */
final class RowsAhead implements AutoCloseable {
  static final int UNIT_RECORDS = 512;
  static final long UNIT_BYTES = 256 * 1024;

  private final RowSource rows;
  private final ReadAheadPool pool;

  /** Held while a unit is read; the data files are closed under it. */
  private final ReentrantLock reading = new ReentrantLock();

  private volatile boolean closed;
  private final BatchDirectory directory;
  private int planned;
  private ArrayDeque<Record> current = new ArrayDeque<>();
  private Pending ahead;

  /**
   * A unit to read: how many rows it holds, whether a thread has taken it (a pool thread or, when
   * none has yet, the fetch thread), and the pool's result.
   */
  private final class Pending {
    final int size;
    final AtomicBoolean taken = new AtomicBoolean();
    final FutureTask<ArrayDeque<Record>> task;

    Pending(int size) {
      this.size = size;
      this.task = new FutureTask<>(() -> taken.compareAndSet(false, true) ? read(size) : null);
    }
  }

  /**
   * The rows of {@code directory}'s batches from {@code firstBatch} on, out of {@code rows}, read
   * ahead on {@code pool}.
   */
  RowsAhead(RowSource rows, BatchDirectory directory, int firstBatch, ReadAheadPool pool) {
    this.rows = rows;
    this.pool = pool;
    this.directory = directory;
    this.planned = firstBatch;
    this.ahead = submitNext();
  }

  /**
   * The next row, or null after the rows of the last batch (or when the data files hold fewer).
   *
   * @throws IOException when a data file cannot be read
   */
  Record next() throws IOException {
    while (current.isEmpty()) {
      if (ahead == null) {
        return null;
      }
      current = take();
    }
    return current.poll();
  }

  private ArrayDeque<Record> take() throws IOException {
    Pending pending = ahead;
    ArrayDeque<Record> unit =
        pending.taken.compareAndSet(false, true) ? read(pending.size) : await(pending.task);
    ahead = submitNext();
    return unit;
  }

  private Pending submitNext() {
    if (planned >= directory.size()) {
      return null;
    }
    int count = 0;
    long bytes = 0;
    while (planned < directory.size()
        && (count == 0 || (count < UNIT_RECORDS && bytes < UNIT_BYTES))) {
      BatchDirectory.Entry entry = directory.get(planned++);
      if (!entry.isControl()) {
        count += entry.header().recordCount();
        bytes += entry.header().sizeInBytes();
      }
    }
    Pending pending = new Pending(count);
    pool.offer(pending.task);
    return pending;
  }

  private ArrayDeque<Record> read(int count) throws IOException {
    ArrayDeque<Record> unit = new ArrayDeque<>(count);
    reading.lock();
    try {
      for (int i = 0; i < count && !closed; i++) {
        Record row = rows.next();
        if (row == null) {
          break;
        }
        unit.add(row);
      }
    } finally {
      reading.unlock();
    }
    if (closed) {
      closeRows();
    }
    return unit;
  }

  private static ArrayDeque<Record> await(Future<ArrayDeque<Record>> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Remote segment read interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }

  /**
   * Stops reading ahead and closes the data files, without waiting: a pool thread reading a unit
   * closes them when it is done (a storage read in progress is not cut short).
   */
  @Override
  public void close() {
    closed = true;
    if (ahead != null) {
      ahead.taken.set(true);
      ahead = null;
    }
    current.clear();
    closeRows();
  }

  private void closeRows() {
    if (reading.tryLock()) {
      try {
        rows.close();
      } finally {
        reading.unlock();
      }
    }
  }
}
