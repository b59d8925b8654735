package io.floe.copy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Kafka transaction index file: 34-byte entries of version, producer id, first, last and
 * last stable offset.
 */
public final class TransactionIndex {
  public static final int ENTRY_SIZE = 34;

  private TransactionIndex() {}

  public static List<AbortedTransaction> parse(ByteBuffer index) {
    ByteBuffer buf = index.duplicate();
    if (buf.remaining() % ENTRY_SIZE != 0) {
      throw new SegmentFormatException(
          "Transaction index has " + buf.remaining() + " bytes, not a multiple of " + ENTRY_SIZE);
    }
    List<AbortedTransaction> out = new ArrayList<>(buf.remaining() / ENTRY_SIZE);
    while (buf.hasRemaining()) {
      short version = buf.getShort();
      if (version != 0) {
        throw new SegmentFormatException(
            "Transaction index entry version " + version + " is not supported");
      }
      long producerId = buf.getLong();
      long first = buf.getLong();
      long last = buf.getLong();
      buf.getLong(); // last stable offset
      out.add(new AbortedTransaction(producerId, first, last));
    }
    return out;
  }
}
