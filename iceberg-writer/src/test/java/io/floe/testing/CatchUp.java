package io.floe.testing;

import io.floe.fetch.StoredSegment;
import io.floe.format.BatchHeader;
import io.floe.manifest.BatchDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Reads a whole stored segment as the broker's RemoteLogManager does: from the position of the next
 * batch, {@code fetchBytes} per fetch (more when one batch is larger), keeping the complete batches
 * read, then closing the stream.
 */
public final class CatchUp {
  private CatchUp() {}

  /** Writes the complete batches served to {@code out}; returns their bytes. */
  public static long read(StoredSegment stored, int fetchBytes, OutputStream out)
      throws IOException {
    BatchDirectory directory = stored.directory();
    long served = 0;
    int next = 0;
    int want = fetchBytes;
    while (next < directory.size()) {
      byte[] fetched;
      try (InputStream in = stored.fetch(directory.encodedPosition(next))) {
        fetched = in.readNBytes(want);
      }
      int complete = 0;
      int batches = 0;
      ByteBuffer view = ByteBuffer.wrap(fetched);
      while (complete + BatchHeader.LOG_OVERHEAD <= fetched.length) {
        int size = BatchHeader.LOG_OVERHEAD + view.getInt(complete + 8);
        if (complete + size > fetched.length) {
          break;
        }
        complete += size;
        batches++;
      }
      if (batches == 0) {
        if (fetched.length < want) {
          throw new IOException("truncated batch " + next + " of segment at its end");
        }
        want *= 2; // one batch larger than the fetch: ask for more, as the broker does
        continue;
      }
      out.write(fetched, 0, complete);
      served += complete;
      next += batches;
      want = fetchBytes;
    }
    return served;
  }
}
