package io.floe.fetch;

import io.floe.format.BatchHeader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A served stream cut at the end of a fetched range: after a number of bytes (where positions are
 * the served stream's), or after a number of whole batches (where they are the original segment's,
 * so that a byte count would cut a re-encoded batch that is longer than its original).
 */
final class RangeLimitedStream extends FilterInputStream {
  private long bytesLeft;
  private final boolean countsBatches;
  private long batchesLeft;
  private final byte[] prefix = new byte[BatchHeader.LOG_OVERHEAD];
  private int prefixHeld;
  private int prefixServed;

  private RangeLimitedStream(InputStream in, long bytes, boolean countsBatches, long batches) {
    super(in);
    this.bytesLeft = bytes;
    this.countsBatches = countsBatches;
    this.batchesLeft = batches;
  }

  static InputStream bytes(InputStream in, long limit) {
    return new RangeLimitedStream(in, limit, false, 0);
  }

  static InputStream batches(InputStream in, long count) {
    return new RangeLimitedStream(in, 0, true, count);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n <= 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (prefixServed == prefixHeld && bytesLeft <= 0 && !nextBatch()) {
      return -1;
    }
    if (prefixServed < prefixHeld) {
      int n = Math.min(len, prefixHeld - prefixServed);
      System.arraycopy(prefix, prefixServed, b, off, n);
      prefixServed += n;
      return n;
    }
    int n = in.read(b, off, (int) Math.min(len, bytesLeft));
    if (n > 0) {
      bytesLeft -= n;
    }
    return n;
  }

  /**
   * At a batch boundary of a batch-counted stream: reads the next batch's length prefix (served
   * before the rest) and allows its bytes, unless the count is reached or the stream ended.
   */
  private boolean nextBatch() throws IOException {
    if (!countsBatches || batchesLeft <= 0) {
      return false;
    }
    prefixHeld = in.readNBytes(prefix, 0, prefix.length);
    prefixServed = 0;
    if (prefixHeld < prefix.length) {
      batchesLeft = 0; // a truncated tail: pass it on, the reader reports it
      return prefixHeld > 0;
    }
    bytesLeft = ByteBuffer.wrap(prefix).getInt(8);
    batchesLeft--;
    return true;
  }

  @Override
  public int available() throws IOException {
    return prefixHeld - prefixServed + (int) Math.min(in.available(), Math.max(bytesLeft, 0));
  }

  @Override
  public boolean markSupported() {
    return false;
  }
}
