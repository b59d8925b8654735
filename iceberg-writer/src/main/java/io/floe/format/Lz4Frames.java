package io.floe.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;

/**
 * One-shot LZ4 frames of a batch's records, as Kafka writes them for magic v2 (64 KiB independent
 * blocks, no block or content checksum, no content size), compressed by the fastest compressor
 * lz4-java has (its native one when it loads). For batches whose compressed bytes are free to
 * change ({@link Reencoding#positionsAreLowerBounds()}): the streaming {@link Compression#compress}
 * keeps the pure Java compressor whose output V1 and V2 positions were computed from, and allocates
 * its block buffers and hash table for every batch, several times slower for producer-sized
 * batches.
 */
final class Lz4Frames {
  private static final int MAGIC = 0x184D2204;
  private static final int BLOCK_SIZE = 64 * 1024;
  private static final int UNCOMPRESSED_BLOCK = 0x8000_0000;

  /** Version 01, independent blocks. */
  private static final byte FLG = 0x60;

  /** 64 KiB maximum block size. */
  private static final byte BD = 0x40;

  /** The frame descriptor's checksum: the second byte of the xxHash32 of FLG and BD. */
  private static final byte HC =
      (byte) (XXHashFactory.safeInstance().hash32().hash(new byte[] {FLG, BD}, 0, 2, 0) >> 8);

  private static final int FRAME_HEADER = 7;
  private static final int END_MARK = 4;

  private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();

  private Lz4Frames() {}

  /** The most bytes a frame of {@code length} bytes can take. */
  static long maxFrameLength(int length) {
    int rest = length % BLOCK_SIZE;
    return FRAME_HEADER
        + (long) (length / BLOCK_SIZE) * (4 + COMPRESSOR.maxCompressedLength(BLOCK_SIZE))
        + (rest == 0 ? 0 : 4 + COMPRESSOR.maxCompressedLength(rest))
        + END_MARK;
  }

  /**
   * Writes the frame of {@code src} into {@code dst} from {@code offset}, which has room for {@link
   * #maxFrameLength}; returns the frame's length.
   */
  static int compress(byte[] src, byte[] dst, int offset) {
    ByteBuffer out = ByteBuffer.wrap(dst).order(ByteOrder.LITTLE_ENDIAN);
    out.position(offset);
    out.putInt(MAGIC).put(FLG).put(BD).put(HC);
    for (int from = 0; from < src.length; from += BLOCK_SIZE) {
      int length = Math.min(BLOCK_SIZE, src.length - from);
      int sizeAt = out.position();
      int body = sizeAt + 4;
      int compressed = COMPRESSOR.compress(src, from, length, dst, body, dst.length - body);
      if (compressed < length) {
        out.putInt(sizeAt, compressed);
        out.position(body + compressed);
      } else {
        out.putInt(sizeAt, length | UNCOMPRESSED_BLOCK);
        System.arraycopy(src, from, dst, body, length);
        out.position(body + length);
      }
    }
    out.putInt(0);
    return out.position() - offset;
  }
}
