package io.floe.format;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.SnappyInputStream;
import org.xerial.snappy.SnappyOutputStream;

/**
 * The compression codecs of the Kafka v2 batch format (attributes bits 0-2).
 *
 * <p>{@link #compress} is deterministic: every codec uses a fixed level, fixed block and buffer
 * sizes and a fixed (pure Java where the library offers a choice) implementation, so the same input
 * gives the same bytes every time on a given library version. Output is not expected to be
 * byte-identical to Kafka's own (Kafka may use other levels / compressor variants), but Kafka reads
 * it, and {@link #decompress} reads what Kafka writes.
 */
public enum Compression {
  NONE(0),
  GZIP(1),
  SNAPPY(2),
  LZ4(3),
  ZSTD(4);

  /** gzip: java.util.zip default level (6), 8 KiB deflater buffer. */
  static final int GZIP_BUFFER = 8 * 1024;

  /** snappy: xerial framing, 32 KiB blocks (what Kafka uses). */
  static final int SNAPPY_BLOCK = 32 * 1024;

  /** zstd level 3 (Kafka's default), no checksum, single-threaded. */
  static final int ZSTD_LEVEL = 3;

  static final int BUFFER = 16 * 1024;

  private final int id;

  Compression(int id) {
    this.id = id;
  }

  public int id() {
    return id;
  }

  /**
   * @throws IllegalArgumentException for an id that is not 0..4
   */
  public static Compression fromId(int id) {
    switch (id) {
      case 0:
        return NONE;
      case 1:
        return GZIP;
      case 2:
        return SNAPPY;
      case 3:
        return LZ4;
      case 4:
        return ZSTD;
      default:
        throw new IllegalArgumentException("Unknown compression codec id " + id);
    }
  }

  /** Wraps {@code in} (compressed bytes) in a stream that yields the decompressed bytes. */
  public InputStream decompress(InputStream in) throws IOException {
    switch (this) {
      case NONE:
        return in;
      case GZIP:
        return new BufferedInputStream(new GZIPInputStream(in, GZIP_BUFFER), BUFFER);
      case SNAPPY:
        return new SnappyInputStream(in);
      case LZ4:
        return new LZ4FrameInputStream(
            in,
            LZ4Factory.fastestInstance().safeDecompressor(),
            XXHashFactory.fastestInstance().hash32());
      case ZSTD:
        return new BufferedInputStream(
            new ZstdInputStreamNoFinalizer(in, RecyclingBufferPool.INSTANCE), BUFFER);
      default:
        throw new AssertionError(this);
    }
  }

  /**
   * Wraps {@code out} in a compressing stream. Closing the returned stream finishes the compressed
   * stream and closes {@code out}. For NONE, {@code out} itself is returned.
   */
  public OutputStream compress(OutputStream out) throws IOException {
    switch (this) {
      case NONE:
        return out;
      case GZIP:
        return new BufferedOutputStream(new GZIPOutputStream(out, GZIP_BUFFER), BUFFER);
      case SNAPPY:
        return new SnappyOutputStream(out, SNAPPY_BLOCK);
      case LZ4:
        // Standard LZ4 frame as Kafka writes for v2: 64 KiB blocks, independent blocks,
        // no block/content checksums, no content size. The safe (pure Java) compressor is
        // used so output does not depend on whether native/unsafe code is available.
        return new LZ4FrameOutputStream(
            out,
            LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
            -1L,
            LZ4Factory.safeInstance().fastCompressor(),
            XXHashFactory.safeInstance().hash32(),
            LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
      case ZSTD:
        ZstdOutputStreamNoFinalizer z =
            new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL);
        z.setChecksum(false);
        return new BufferedOutputStream(z, BUFFER);
      default:
        throw new AssertionError(this);
    }
  }
}
