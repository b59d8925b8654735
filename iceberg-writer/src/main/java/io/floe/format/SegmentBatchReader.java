package io.floe.format;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.OptionalLong;

/**
 * Streams v2 batches from a segment with bounded memory: it reads one batch at a time (the 12-byte
 * offset/length prefix, then the rest) and keeps no reference to earlier batches. The largest
 * allocation is one batch (plus its decompressed records when the caller asks for them).
 *
 * <p>{@link #next()} throws {@link CorruptBatchException} (unchecked). After a CRC, magic or codec
 * error the reader has consumed the bad batch, so iteration may continue with the next one. After a
 * truncation or an out-of-range length the stream cannot be resynchronised and {@link #hasNext()}
 * returns false. I/O errors surface as {@link UncheckedIOException}.
 *
 * <p>Unlike Kafka's FileRecords (which silently ignores a partial trailing batch), a truncated
 * trailing batch is reported as an error.
 */
public final class SegmentBatchReader implements Iterator<RecordBatch>, Closeable {
  /** Default cap on one batch's total size: effectively Java's largest array. */
  public static final int DEFAULT_MAX_BATCH_SIZE = Integer.MAX_VALUE - 64;

  private static final int INITIAL_CHUNK = 1 << 20;

  private final InputStream in;
  private final long totalSize; // bytes from startPosition to end, or -1 if unknown
  private final long startPosition;
  private final int maxBatchSize;
  private long position;
  private int peeked = -2; // -2: not peeked; -1: EOF; else the first byte of the next batch
  private boolean broken;
  private boolean closed;

  private SegmentBatchReader(InputStream in, long startPosition, long totalSize, int maxBatchSize) {
    this.in = in;
    this.startPosition = startPosition;
    this.position = startPosition;
    this.totalSize = totalSize;
    if (maxBatchSize < BatchHeader.HEADER_SIZE) {
      throw new IllegalArgumentException(
          "maxBatchSize " + maxBatchSize + " < " + BatchHeader.HEADER_SIZE);
    }
    this.maxBatchSize = maxBatchSize;
  }

  /** Opens a segment (.log) file; positions start at 0. */
  public static SegmentBatchReader open(Path segmentFile) throws IOException {
    return open(segmentFile, DEFAULT_MAX_BATCH_SIZE);
  }

  /** Opens a segment file, rejecting any batch whose total size exceeds {@code maxBatchSize}. */
  public static SegmentBatchReader open(Path segmentFile, int maxBatchSize) throws IOException {
    long size = Files.size(segmentFile);
    InputStream in = new BufferedInputStream(Files.newInputStream(segmentFile), 64 * 1024);
    return new SegmentBatchReader(in, 0, size, maxBatchSize);
  }

  /**
   * Reads batches from a generic stream whose first byte is at segment position {@code
   * startPosition} (used for positions in errors and {@link RecordBatch#position()}). The reader
   * closes {@code in} when closed.
   */
  public static SegmentBatchReader of(InputStream in, long startPosition) {
    return of(in, startPosition, DEFAULT_MAX_BATCH_SIZE);
  }

  public static SegmentBatchReader of(InputStream in, long startPosition, int maxBatchSize) {
    return new SegmentBatchReader(in, startPosition, -1, maxBatchSize);
  }

  /** Segment position of the next batch to read. */
  public long position() {
    return position;
  }

  @Override
  public boolean hasNext() {
    if (closed || broken) {
      return false;
    }
    if (peeked == -2) {
      try {
        peeked = in.read();
      } catch (IOException e) {
        throw new UncheckedIOException("reading segment at position " + position, e);
      }
    }
    return peeked != -1;
  }

  @Override
  public RecordBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more batches at position " + position);
    }
    long batchPos = position;
    byte[] prefix = new byte[BatchHeader.LOG_OVERHEAD];
    prefix[0] = (byte) peeked;
    peeked = -2;
    int got = 1 + readFully(prefix, 1, prefix.length - 1);
    if (got < prefix.length) {
      broken = true;
      throw new CorruptBatchException(
          batchPos,
          OptionalLong.empty(),
          "truncated at position "
              + (batchPos + got)
              + ": "
              + got
              + " of "
              + BatchHeader.LOG_OVERHEAD
              + " bytes of the batch's offset/length prefix expected");
    }
    ByteBuffer p = ByteBuffer.wrap(prefix);
    long baseOffset = p.getLong(0);
    int len = p.getInt(BatchHeader.LENGTH_OFFSET);
    try {
      RecordBatch.checkLengthRange(len, batchPos, baseOffset, maxBatchSize);
    } catch (CorruptBatchException e) {
      broken = true;
      throw e;
    }
    int size = len + BatchHeader.LOG_OVERHEAD;
    long available = totalSize < 0 ? -1 : totalSize - (batchPos - startPosition);
    if (available >= 0 && available < size) {
      broken = true;
      throw truncated(batchPos, baseOffset, available, size);
    }
    byte[] batch = readBatch(prefix, size, batchPos, baseOffset);
    position = batchPos + size;
    return RecordBatch.validate(batch, batchPos, maxBatchSize);
  }

  private CorruptBatchException truncated(long batchPos, long baseOffset, long have, long size) {
    return new CorruptBatchException(
        batchPos,
        OptionalLong.of(baseOffset),
        "truncated at position "
            + (batchPos + have)
            + ": "
            + have
            + " of "
            + size
            + " bytes expected (12-byte prefix + batch length "
            + (size - BatchHeader.LOG_OVERHEAD)
            + ")");
  }

  /**
   * Reads the batch, growing the buffer in chunks so a corrupt huge length on a short stream fails
   * cheaply.
   */
  private byte[] readBatch(byte[] prefix, int size, long batchPos, long baseOffset) {
    int initial = totalSize >= 0 ? size : Math.min(size, INITIAL_CHUNK);
    byte[] buf = new byte[initial];
    System.arraycopy(prefix, 0, buf, 0, prefix.length);
    int filled = prefix.length;
    while (true) {
      int n = readFully(buf, filled, buf.length - filled);
      filled += n;
      if (filled == size) {
        return buf;
      }
      if (filled < buf.length) {
        broken = true;
        throw truncated(batchPos, baseOffset, filled, size);
      }
      buf = Arrays.copyOf(buf, (int) Math.min(size, 2L * buf.length));
    }
  }

  private int readFully(byte[] b, int off, int len) {
    int total = 0;
    try {
      while (total < len) {
        int n = in.read(b, off + total, len - total);
        if (n < 0) {
          break;
        }
        total += n;
      }
    } catch (EOFException e) {
      return total;
    } catch (IOException e) {
      broken = true;
      throw new UncheckedIOException("reading segment at position " + (position + off + total), e);
    }
    return total;
  }

  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      in.close();
    }
  }
}
