package io.floe.fetch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The readers of finished fetches that opened segments keep for a next fetch that continues where
 * one stopped, counted across every segment of a plugin instance: past {@code max}, the reader
 * parked longest ago is closed. An idle reader holds its Parquet readers' current row group (up to
 * the table's row group size for each column read), so a bound per segment alone let the segments a
 * broker keeps open ({@code cache.segments.max-entries}, twice over) hold hundreds of MiB of heap
 * for fetches that mostly never came: a consumer continues the few partitions it is catching up on,
 * not every segment it has finished.
 */
public final class IdleReaders {
  /** Enough for a broker's remote reader threads (ten by default) each continuing one partition. */
  public static final int DEFAULT_MAX = 16;

  private record Parked(StoredSegment segment, ReencodingInputStream reader) {}

  private final int max;
  private final ArrayDeque<Parked> parked = new ArrayDeque<>();

  public IdleReaders(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max must not be negative");
    }
    this.max = max;
  }

  /**
   * {@code reader} was parked in {@code segment}: closes the readers parked longest ago, past the
   * bound. Called without the segment's lock held (closing takes other segments' locks).
   */
  void parked(StoredSegment segment, ReencodingInputStream reader) {
    List<Parked> over = new ArrayList<>();
    synchronized (this) {
      parked.addFirst(new Parked(segment, reader));
      while (parked.size() > max) {
        over.add(parked.removeLast());
      }
    }
    over.forEach(p -> p.segment().discard(p.reader()));
  }

  /** {@code reader} left its segment's idle readers (reused by a fetch, or closed). */
  synchronized void unparked(ReencodingInputStream reader) {
    parked.removeIf(p -> p.reader() == reader);
  }

  /** How many readers are parked (for tests and metrics). */
  public synchronized int size() {
    return parked.size();
  }
}
