package io.floe.manifest;

import io.floe.format.BatchHeader;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every batch of one segment in order: its header fields, where it was in the original segment, and
 * its size and CRC once re-encoded. Positions served to the broker (offset index, fetch start
 * positions) are positions in the re-encoded layout, which is the prefix sum of the encoded sizes.
 * Control batches keep their raw bytes here: they are not table rows.
 */
public final class BatchDirectory {
  /** Kafka's default {@code index.interval.bytes}. */
  public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;

  /** An entry as {@link #serialize()} writes it without a control batch: header, then 20 bytes. */
  private static final int MIN_SERIALIZED_ENTRY_BYTES = BatchHeader.HEADER_SIZE + 8 + 4 + 4 + 4;

  private final List<Entry> entries;
  private final long[] encodedPositions;

  public BatchDirectory(List<Entry> entries) {
    this.entries = List.copyOf(entries);
    this.encodedPositions = new long[this.entries.size() + 1];
    for (int i = 0; i < this.entries.size(); i++) {
      encodedPositions[i + 1] = encodedPositions[i] + this.entries.get(i).encodedSize();
    }
  }

  /**
   * One batch. {@code controlBatch} holds the raw bytes of a control batch and is null otherwise.
   */
  public record Entry(
      BatchHeader header,
      long originalPosition,
      int encodedSize,
      int encodedCrc,
      byte[] controlBatch) {
    public boolean isControl() {
      return controlBatch != null;
    }
  }

  public List<Entry> entries() {
    return Collections.unmodifiableList(entries);
  }

  public int size() {
    return entries.size();
  }

  public Entry get(int index) {
    return entries.get(index);
  }

  public long encodedPosition(int index) {
    return encodedPositions[index];
  }

  /**
   * The position after the last batch: the size of the re-encoded segment where positions are the
   * stream's (re-encoding V1 and V2), a lower bound of it from V3 on.
   */
  public long encodedSize() {
    return encodedPositions[entries.size()];
  }

  /**
   * The index of the batch that starts at {@code position}, or of the first batch after it; {@link
   * #size()} when the position is past the last batch.
   */
  public int indexAtOrAfter(long position) {
    int lo = 0;
    int hi = entries.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (encodedPositions[mid] < position) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * A Kafka offset index (entries of relative offset and position, 8 bytes each, big endian) over
   * the directory's positions, spaced the way the broker spaced its own: an entry for a batch once
   * more than {@code intervalBytes} of the original segment were written since the previous entry.
   * An entry holds its batch's base offset (the broker's own hold the last): looking up the first
   * offset of a batch with an entry then gives that batch, not the one before it, so a consumer's
   * next fetch starts at the batch its previous fetch stopped in, where the reader it left is.
   */
  public ByteBuffer offsetIndex(long segmentBaseOffset, int intervalBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer entry = ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN);
    long sinceLastEntry = 0;
    for (int i = 0; i < entries.size(); i++) {
      BatchHeader h = entries.get(i).header();
      if (sinceLastEntry > intervalBytes) {
        entry.clear();
        entry.putInt(Math.toIntExact(h.baseOffset() - segmentBaseOffset));
        entry.putInt(Math.toIntExact(encodedPositions[i]));
        out.write(entry.array(), 0, 8);
        sinceLastEntry = 0;
      }
      sinceLastEntry += h.sizeInBytes();
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  /**
   * A Kafka time index (entries of timestamp and relative offset, 12 bytes each): for each
   * offset-index interval, the largest timestamp so far and the offset of the batch holding it,
   * when it grew; plus a last entry, as the broker appends when a segment rolls.
   */
  public ByteBuffer timeIndex(long segmentBaseOffset, int intervalBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuffer entry = ByteBuffer.allocate(12).order(ByteOrder.BIG_ENDIAN);
    long maxTimestamp = Long.MIN_VALUE;
    long offsetOfMax = -1;
    long lastWritten = Long.MIN_VALUE;
    long sinceLastEntry = 0;
    for (Entry e : entries) {
      if (sinceLastEntry > intervalBytes && maxTimestamp > lastWritten) {
        writeTimeEntry(out, entry, maxTimestamp, offsetOfMax - segmentBaseOffset);
        lastWritten = maxTimestamp;
        sinceLastEntry = 0;
      }
      if (e.header().maxTimestamp() > maxTimestamp) {
        maxTimestamp = e.header().maxTimestamp();
        offsetOfMax = e.header().lastOffset();
      }
      sinceLastEntry += e.header().sizeInBytes();
    }
    if (offsetOfMax >= 0 && maxTimestamp > lastWritten) {
      writeTimeEntry(out, entry, maxTimestamp, offsetOfMax - segmentBaseOffset);
    }
    return ByteBuffer.wrap(out.toByteArray());
  }

  private static void writeTimeEntry(
      ByteArrayOutputStream out, ByteBuffer entry, long timestamp, long relativeOffset) {
    entry.clear();
    entry.putLong(timestamp);
    entry.putInt(Math.toIntExact(relativeOffset));
    out.write(entry.array(), 0, 12);
  }

  public byte[] serialize() {
    // One exactly sized buffer: a DataOutputStream over a ByteArrayOutputStream took a lock per
    // byte, about 5% of a copy's CPU for 100-byte records.
    int size = 4;
    for (Entry e : entries) {
      size += MIN_SERIALIZED_ENTRY_BYTES + (e.isControl() ? e.controlBatch().length : 0);
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(entries.size());
    for (Entry e : entries) {
      BatchHeader h = e.header();
      out.putLong(h.baseOffset());
      out.putInt(h.batchLength());
      out.putInt(h.partitionLeaderEpoch());
      out.put(h.magic());
      out.putInt(h.crc());
      out.putShort(h.attributes());
      out.putInt(h.lastOffsetDelta());
      out.putLong(h.baseTimestamp());
      out.putLong(h.maxTimestamp());
      out.putLong(h.producerId());
      out.putShort(h.producerEpoch());
      out.putInt(h.baseSequence());
      out.putInt(h.recordCount());
      out.putLong(e.originalPosition());
      out.putInt(e.encodedSize());
      out.putInt(e.encodedCrc());
      if (e.isControl()) {
        out.putInt(e.controlBatch().length);
        out.put(e.controlBatch());
      } else {
        out.putInt(-1);
      }
    }
    return out.array();
  }

  /**
   * Reads what {@link #serialize()} wrote.
   *
   * @throws IllegalArgumentException when {@code data} is not a serialized directory (truncated, or
   *     an entry count or control-batch length it cannot hold)
   */
  public static BatchDirectory deserialize(byte[] data) {
    ByteBuffer in = ByteBuffer.wrap(data);
    try {
      int count = in.getInt();
      if (count < 0 || count > data.length / MIN_SERIALIZED_ENTRY_BYTES) {
        throw new IllegalArgumentException(
            "Corrupt batch directory: "
                + count
                + " entries cannot fit in "
                + data.length
                + " bytes");
      }
      List<Entry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        BatchHeader h =
            new BatchHeader(
                in.getLong(),
                in.getInt(),
                in.getInt(),
                in.get(),
                in.getInt(),
                in.getShort(),
                in.getInt(),
                in.getLong(),
                in.getLong(),
                in.getLong(),
                in.getShort(),
                in.getInt(),
                in.getInt());
        long originalPosition = in.getLong();
        int encodedSize = in.getInt();
        int encodedCrc = in.getInt();
        int controlLength = in.getInt();
        if (controlLength < -1 || controlLength > in.remaining()) {
          throw new IllegalArgumentException(
              "Corrupt batch directory: control batch length " + controlLength);
        }
        byte[] control = null;
        if (controlLength >= 0) {
          control = new byte[controlLength];
          in.get(control);
        }
        entries.add(new Entry(h, originalPosition, encodedSize, encodedCrc, control));
      }
      return new BatchDirectory(entries);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("Corrupt batch directory: truncated", e);
    }
  }
}
