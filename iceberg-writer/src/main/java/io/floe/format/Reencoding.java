package io.floe.format;

import java.util.zip.CRC32C;

/**
 * How a copied segment's batches are re-encoded and what its indexes' positions mean. Each copied
 * segment records its version, and fetches re-encode with that version, so segments copied before a
 * change keep being served with positions that match their indexes.
 *
 * <p>In V1 and V2 the positions are those of the re-encoded stream, so a copy compresses every
 * batch once to learn its size, and a fetch checks each batch's size and CRC. From V3 on, a batch
 * that re-encoding compresses counts only {@link #LEAST_COMPRESSED_SIZE} bytes in the positions:
 * the least its re-encoding can take. Positions are then lower bounds of the stream's, which is all
 * the broker needs of them: it hands them back to start a fetch at a batch, and it computes the
 * aborted transactions of a {@code read_committed} fetch of N bytes from the index entries within N
 * bytes of its start, which can only cover more offsets than the fetch holds, never fewer. A copy
 * then compresses nothing, and a fetch checks the CRC of each such batch's uncompressed records
 * instead (its compressed bytes are free to change).
 */
public enum Reencoding {
  /** Every codec through its streaming compressor ({@link Compression#compress}). */
  V1(1),
  /**
   * As V1, except zstd: the whole records section compressed in one call on a reused context (level
   * 3, no checksum). Knowing the input size, zstd sizes its tables to it, several times cheaper
   * than a stream per batch for producer-sized batches; the frame also records the content size.
   */
  V2(2),
  /**
   * As V2, except that a batch re-encoding compresses counts {@link #LEAST_COMPRESSED_SIZE} bytes
   * in the positions and is checked by the CRC-32C of its uncompressed records: see {@link
   * #positionsAreLowerBounds()}. Its compressed bytes being free to change, lz4 is compressed in
   * one call by the fastest compressor lz4-java has ({@code Lz4Frames}), the same frame layout.
   */
  V3(3);

  /**
   * The size a batch that re-encoding compresses takes in V3 positions: its header, below which no
   * re-encoding of it can be.
   */
  public static final int LEAST_COMPRESSED_SIZE = BatchHeader.HEADER_SIZE;

  /** What copies use. */
  public static final Reencoding CURRENT = V3;

  private final int version;

  Reencoding(int version) {
    this.version = version;
  }

  public int version() {
    return version;
  }

  /**
   * Whether the batch directory of a segment copied this way gives a batch that re-encoding
   * compresses ({@link #compresses}) the size {@link #LEAST_COMPRESSED_SIZE} and the CRC-32C of its
   * uncompressed records section, rather than the size and CRC of the re-encoded batch.
   */
  public boolean positionsAreLowerBounds() {
    return this.version >= 3;
  }

  /** Whether re-encoding compresses this batch's records (a batch that has records and a codec). */
  public static boolean compresses(BatchHeader header) {
    return header.compression() != Compression.NONE && header.recordCount() > 0;
  }

  /**
   * The CRC-32C of a batch's uncompressed records section, which a V3 batch directory records for a
   * batch that re-encoding compresses.
   */
  public static int recordsCrc(byte[] records) {
    CRC32C crc = new CRC32C();
    crc.update(records);
    return (int) crc.getValue();
  }

  /**
   * @throws IllegalArgumentException for a version this Floe does not know (written by a newer one)
   */
  public static Reencoding of(int version) {
    for (Reencoding r : values()) {
      if (r.version == version) {
        return r;
      }
    }
    throw new IllegalArgumentException("Unknown re-encoding version " + version);
  }
}
