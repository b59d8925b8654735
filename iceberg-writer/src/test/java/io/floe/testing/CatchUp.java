package io.floe.testing;

import io.floe.fetch.StoredSegment;
import io.floe.format.BatchHeader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Reads a whole stored segment as the broker's RemoteLogManager does: each fetch starts at the
 * position the served offset index gives for the next offset (its last entry at or before it),
 * reads {@code fetchBytes} (more when one batch is larger), skips the batches before the next
 * offset, keeps the complete batches after it, and closes the stream.
 */
public final class CatchUp {
  private static final int LAST_OFFSET_DELTA = 23;

  private CatchUp() {}

  /** Writes the complete batches served to {@code out}; returns their bytes. */
  public static long read(StoredSegment stored, int fetchBytes, OutputStream out)
      throws IOException {
    long base = stored.manifest().offsets().first();
    long last = stored.manifest().offsets().last();
    ByteBuffer index = stored.offsetIndex();
    long served = 0;
    long next = base;
    int want = fetchBytes;
    while (next <= last) {
      byte[] fetched;
      try (InputStream in = stored.fetch(lookup(index, next - base))) {
        fetched = in.readNBytes(want);
      }
      if (fetched.length == 0) {
        break; // past the last batch (offsets after it were compacted away or are control-free)
      }
      int at = 0;
      int from = -1;
      long after = next;
      while (at + BatchHeader.LOG_OVERHEAD <= fetched.length) {
        ByteBuffer view = ByteBuffer.wrap(fetched);
        int size = BatchHeader.LOG_OVERHEAD + view.getInt(at + 8);
        if (at + size > fetched.length) {
          break;
        }
        long lastOffset = view.getLong(at) + view.getInt(at + LAST_OFFSET_DELTA);
        if (lastOffset >= next && from < 0) {
          from = at;
        }
        at += size;
        after = Math.max(after, lastOffset + 1);
      }
      if (from < 0) {
        if (at < fetched.length || fetched.length == want) {
          want *= 2; // the batch holding the next offset is larger than the fetch
          continue;
        }
        break;
      }
      out.write(fetched, from, at - from);
      served += at - from;
      next = after;
      want = fetchBytes;
    }
    return served;
  }

  /** The position of the last index entry whose offset is at or before {@code relative}. */
  private static long lookup(ByteBuffer index, long relative) {
    long position = 0;
    for (int i = index.position(); i + 8 <= index.limit(); i += 8) {
      if (index.getInt(i) > relative) {
        break;
      }
      position = index.getInt(i + 4);
    }
    return position;
  }
}
