package io.floe.format;

import java.nio.ByteBuffer;

/** The 61-byte v2 batch header, all fields exactly as stored. */
public record BatchHeader(
    long baseOffset,
    int batchLength,
    int partitionLeaderEpoch,
    byte magic,
    int crc,
    short attributes,
    int lastOffsetDelta,
    long baseTimestamp,
    long maxTimestamp,
    long producerId,
    short producerEpoch,
    int baseSequence,
    int recordCount) {

  public static final int HEADER_SIZE = 61;

  /** baseOffset + batchLength: the bytes before the length field's payload. */
  public static final int LOG_OVERHEAD = 12;

  /** Smallest legal batchLength (a batch with no records). */
  public static final int MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD;

  static final int BASE_OFFSET_OFFSET = 0;
  static final int LENGTH_OFFSET = 8;
  static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
  static final int MAGIC_OFFSET = 16;
  static final int CRC_OFFSET = 17;
  static final int ATTRIBUTES_OFFSET = 21;
  static final int LAST_OFFSET_DELTA_OFFSET = 23;
  static final int BASE_TIMESTAMP_OFFSET = 27;
  static final int MAX_TIMESTAMP_OFFSET = 35;
  static final int PRODUCER_ID_OFFSET = 43;
  static final int PRODUCER_EPOCH_OFFSET = 51;
  static final int BASE_SEQUENCE_OFFSET = 53;
  static final int RECORD_COUNT_OFFSET = 57;

  public static final int COMPRESSION_MASK = 0x07;
  public static final int TIMESTAMP_TYPE_MASK = 0x08;
  public static final int TRANSACTIONAL_MASK = 0x10;
  public static final int CONTROL_MASK = 0x20;
  public static final int DELETE_HORIZON_MASK = 0x40;

  /** Total bytes of the batch in the segment: batchLength + 12. */
  public int sizeInBytes() {
    return batchLength + LOG_OVERHEAD;
  }

  public long lastOffset() {
    return baseOffset + lastOffsetDelta;
  }

  /**
   * @throws IllegalArgumentException if attributes carry an unknown codec id (5..7)
   */
  public Compression compression() {
    return Compression.fromId(attributes & COMPRESSION_MASK);
  }

  public TimestampType timestampType() {
    return (attributes & TIMESTAMP_TYPE_MASK) == 0
        ? TimestampType.CREATE_TIME
        : TimestampType.LOG_APPEND_TIME;
  }

  public boolean isTransactional() {
    return (attributes & TRANSACTIONAL_MASK) != 0;
  }

  public boolean isControl() {
    return (attributes & CONTROL_MASK) != 0;
  }

  public boolean hasDeleteHorizon() {
    return (attributes & DELETE_HORIZON_MASK) != 0;
  }

  /**
   * The CRC field, as stored and not verified, of the batch that starts at {@code batch}'s
   * position.
   */
  public static int crcOf(ByteBuffer batch) {
    return batch.getInt(batch.position() + CRC_OFFSET);
  }

  /** Reads the 61 header bytes at buffer's absolute index {@code at}, big-endian. */
  static BatchHeader read(ByteBuffer b, int at) {
    return new BatchHeader(
        b.getLong(at + BASE_OFFSET_OFFSET),
        b.getInt(at + LENGTH_OFFSET),
        b.getInt(at + PARTITION_LEADER_EPOCH_OFFSET),
        b.get(at + MAGIC_OFFSET),
        b.getInt(at + CRC_OFFSET),
        b.getShort(at + ATTRIBUTES_OFFSET),
        b.getInt(at + LAST_OFFSET_DELTA_OFFSET),
        b.getLong(at + BASE_TIMESTAMP_OFFSET),
        b.getLong(at + MAX_TIMESTAMP_OFFSET),
        b.getLong(at + PRODUCER_ID_OFFSET),
        b.getShort(at + PRODUCER_EPOCH_OFFSET),
        b.getInt(at + BASE_SEQUENCE_OFFSET),
        b.getInt(at + RECORD_COUNT_OFFSET));
  }

  /**
   * Writes the 61 header bytes at absolute index 0 of {@code b} with the given length/crc/count.
   */
  void write(ByteBuffer b, int length, int crcValue, int count) {
    b.putLong(BASE_OFFSET_OFFSET, baseOffset);
    b.putInt(LENGTH_OFFSET, length);
    b.putInt(PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
    b.put(MAGIC_OFFSET, magic);
    b.putInt(CRC_OFFSET, crcValue);
    b.putShort(ATTRIBUTES_OFFSET, attributes);
    b.putInt(LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
    b.putLong(BASE_TIMESTAMP_OFFSET, baseTimestamp);
    b.putLong(MAX_TIMESTAMP_OFFSET, maxTimestamp);
    b.putLong(PRODUCER_ID_OFFSET, producerId);
    b.putShort(PRODUCER_EPOCH_OFFSET, producerEpoch);
    b.putInt(BASE_SEQUENCE_OFFSET, baseSequence);
    b.putInt(RECORD_COUNT_OFFSET, count);
  }
}
