package io.floe.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One-shot zstd compression on pooled native contexts. A context keeps its working memory between
 * calls, so a batch costs no allocation; a call resets the session, so the output depends on the
 * input and the fixed parameters only, never on what the context compressed before. At most {@link
 * #POOLED} idle contexts are kept; more concurrent callers get a fresh one that is freed after use.
 */
final class ZstdContexts {
  static final int LEVEL = Compression.ZSTD_LEVEL;

  /**
   * A context at level 3 holds a few MiB of native memory once it has compressed a ~1 MiB batch.
   */
  private static final int POOLED =
      Math.min(16, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

  private static final BlockingQueue<ZstdCompressCtx> IDLE = new ArrayBlockingQueue<>(POOLED);

  private ZstdContexts() {}

  static long maxCompressedLength(int length) {
    return Zstd.compressBound(length);
  }

  /**
   * Compresses {@code src} into {@code dst} from {@code dstOffset}; returns the compressed length.
   */
  static int compress(byte[] src, byte[] dst, int dstOffset) {
    ZstdCompressCtx ctx = IDLE.poll();
    if (ctx == null) {
      ctx = new ZstdCompressCtx().setLevel(LEVEL).setChecksum(false);
    }
    boolean reusable = false;
    try {
      int n = ctx.compressByteArray(dst, dstOffset, dst.length - dstOffset, src, 0, src.length);
      reusable = true;
      return n;
    } finally {
      if (!reusable || !IDLE.offer(ctx)) {
        ctx.close();
      }
    }
  }
}
