package io.floe.fetch;

import io.floe.format.BatchEncoder;
import io.floe.format.BatchHeader;
import io.floe.format.KafkaRecord;
import io.floe.format.Reencoding;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.RowCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;

/**
 * The record batches of a segment from a position on, re-encoded from its data files and batch
 * directory, one batch at a time. Every re-encoded batch is checked against what the copy recorded:
 * its size and CRC where the indexes' positions are those of the re-encoded stream (so a batch that
 * no longer re-encodes the same way fails the read instead of silently shifting positions), and
 * from {@link Reencoding#V3} on, for a batch that re-encoding compresses, the CRC of its
 * uncompressed records. Rows are read from the data files ahead of the batch being encoded ({@link
 * RowsAhead}).
 */
public final class ReencodingInputStream extends InputStream {
  private final BatchDirectory directory;
  private final Reencoding reencoding;

  /**
   * Bytes of already served batches kept, besides the one held and the one before it, for a fetch
   * that starts a few batches back.
   */
  static final int KEPT_BYTES = 64 * 1024;

  private int next;
  private ByteBuffer current = ByteBuffer.allocate(0);

  /** The last batches encoded, oldest first: the last is batch {@code next - 1}. */
  private final ArrayDeque<ByteBuffer> recent = new ArrayDeque<>();

  private long keptBytes;

  /** Kept batches to serve again before encoding more, after a reposition back. */
  private final ArrayDeque<ByteBuffer> replay = new ArrayDeque<>();

  private boolean closed;
  private final RowCodec codec;
  private final RowsAhead rows;
  private ReencodedSegmentCache.Fill copyTo;

  /**
   * Opens the stream at the batch that starts at {@code position} (a position in the re-encoded
   * layout, as the offset index Floe serves gives it), or at the first batch after it.
   */
  public ReencodingInputStream(
      FileIO io,
      Schema schema,
      List<String> dataFiles,
      BatchDirectory directory,
      Reencoding reencoding,
      long position) {
    this(
        io,
        schema,
        new RowCodec(schema),
        dataFiles,
        directory,
        reencoding,
        position,
        ReadAheadPool.shared());
  }

  /**
   * As above, rows read with {@code codec} (a codec for rows of {@code schema}) and ahead on {@code
   * readAhead}.
   */
  public ReencodingInputStream(
      FileIO io,
      Schema schema,
      RowCodec codec,
      List<String> dataFiles,
      BatchDirectory directory,
      Reencoding reencoding,
      long position,
      ReadAheadPool readAhead) {
    this.directory = directory;
    this.reencoding = reencoding;
    this.codec = codec;
    this.next = directory.indexAtOrAfter(position);
    if (next >= directory.size()) {
      this.rows = null;
      return;
    }
    long fromOffset = directory.get(next).header().baseOffset();
    this.rows =
        new RowsAhead(
            new MergedRows(io, schema, codec, dataFiles, fromOffset), directory, next, readAhead);
  }

  /** Also writes each batch this stream re-encodes, in order, to {@code fill}. */
  void copyTo(ReencodedSegmentCache.Fill fill) {
    this.copyTo = fill;
  }

  @Override
  public int read() throws IOException {
    if (!fill()) {
      return -1;
    }
    return current.get() & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, current.remaining());
    current.get(b, off, n);
    return n;
  }

  /**
   * Moves the stream to {@code position} if that needs no going back further than the recent
   * batches it keeps: the batch it holds and those before it up to {@link #KEPT_BYTES} (a
   * sequential consumer's next fetch starts at or shortly before the batch its previous fetch
   * stopped in, at the offset-index entry before it). Returns false, and leaves the stream as it
   * was, otherwise.
   */
  boolean reposition(long position) {
    if (closed) {
      return false;
    }
    int target = directory.indexAtOrAfter(position);
    if (target == next) {
      current = ByteBuffer.allocate(0);
      replay.clear();
      return true;
    }
    int oldestKept = next - recent.size();
    if (target < oldestKept || target > next) {
      return false;
    }
    replay.clear();
    int index = oldestKept;
    for (ByteBuffer batch : recent) {
      if (index++ >= target) {
        replay.add(batch.duplicate());
      }
    }
    current = replay.poll();
    return true;
  }

  @Override
  public int available() {
    return current.remaining();
  }

  private boolean fill() throws IOException {
    if (closed) {
      throw new IOException("Stream closed");
    }
    while (!current.hasRemaining()) {
      if (!replay.isEmpty()) {
        current = replay.poll();
        continue;
      }
      if (next >= directory.size()) {
        return false;
      }
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("Remote segment read interrupted");
      }
      current = encode(next);
      if (copyTo != null) {
        copyTo.append(next, current);
      }
      keep(current);
      next++;
    }
    return true;
  }

  /** Keeps a just encoded batch, and those before it while they fit in {@link #KEPT_BYTES}. */
  private void keep(ByteBuffer batch) {
    recent.addLast(batch.duplicate());
    keptBytes += batch.remaining();
    while (recent.size() > 2 && keptBytes - recent.peekLast().remaining() > KEPT_BYTES) {
      keptBytes -= recent.removeFirst().remaining();
    }
  }

  private ByteBuffer encode(int index) throws IOException {
    BatchDirectory.Entry entry = directory.get(index);
    if (entry.isControl()) {
      return ByteBuffer.wrap(entry.controlBatch());
    }
    BatchHeader header = entry.header();
    List<KafkaRecord> records = new ArrayList<>(header.recordCount());
    for (int i = 0; i < header.recordCount(); i++) {
      Record row = rows.next();
      if (row == null || codec.offsetOf(row) > header.lastOffset()) {
        throw new IOException(
            "Table data for the batch at offset "
                + header.baseOffset()
                + " is incomplete: found "
                + i
                + " of "
                + header.recordCount()
                + " records (were its data files rewritten?)");
      }
      records.add(codec.fromRow(row));
    }
    if (reencoding.positionsAreLowerBounds() && Reencoding.compresses(header)) {
      byte[] plain = BatchEncoder.encodeRecords(header, records);
      int recordsCrc = Reencoding.recordsCrc(plain);
      if (recordsCrc != entry.encodedCrc()) {
        throw new IOException(
            "Batch at offset "
                + header.baseOffset()
                + " re-encodes records with CRC "
                + Integer.toUnsignedString(recordsCrc)
                + ", but was copied with records of CRC "
                + Integer.toUnsignedString(entry.encodedCrc())
                + ": the table no longer holds its records exactly");
      }
      return BatchEncoder.encode(header, records.size(), plain, reencoding);
    }
    ByteBuffer encoded = BatchEncoder.encode(header, records, reencoding);
    int crc = BatchHeader.crcOf(encoded);
    if (encoded.remaining() != entry.encodedSize() || crc != entry.encodedCrc()) {
      throw new IOException(
          "Batch at offset "
              + header.baseOffset()
              + " re-encodes to "
              + encoded.remaining()
              + " bytes with CRC "
              + Integer.toUnsignedString(crc)
              + ", but was copied as "
              + entry.encodedSize()
              + " bytes with CRC "
              + Integer.toUnsignedString(entry.encodedCrc())
              + ": the indexes served for this segment would not match the stream");
    }
    return encoded;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (copyTo != null) {
        copyTo.abandon();
      }
      closeQuietly();
    }
  }

  private void closeQuietly() {
    if (rows != null) {
      rows.close();
    }
    recent.clear();
    replay.clear();
  }
}
