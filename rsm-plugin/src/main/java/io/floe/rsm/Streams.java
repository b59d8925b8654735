package io.floe.rsm;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/** The streams the plugin hands to the broker. */
final class Streams {
  private Streams() {}

  /** A read-only view of a buffer as a stream. */
  static InputStream of(ByteBuffer buffer) {
    ByteBuffer b = buffer.duplicate();
    return new InputStream() {
      @Override
      public int read() {
        return b.hasRemaining() ? b.get() & 0xFF : -1;
      }

      @Override
      public int read(byte[] dst, int off, int len) {
        if (len == 0) {
          return 0;
        }
        if (!b.hasRemaining()) {
          return -1;
        }
        int n = Math.min(len, b.remaining());
        b.get(dst, off, n);
        return n;
      }

      @Override
      public int available() {
        return b.remaining();
      }

      @Override
      public long skip(long n) {
        int k = (int) Math.max(0, Math.min(n, b.remaining()));
        b.position(b.position() + k);
        return k;
      }
    };
  }

  /**
   * Wraps a segment stream: counts the bytes read, and closes the source quietly, also after a
   * failed or interrupted read. (FloeRemoteStorageManager runs the reads with the plugin's class
   * loader.)
   */
  static InputStream segment(InputStream source, LongConsumer bytesRead) {
    return new FilterInputStream(source) {
      private boolean closed;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n <= 0 ? -1 : one[0] & 0xFF;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (closed) {
          throw new IOException("Stream closed");
        }
        if (len == 0) {
          return 0;
        }
        try {
          int n = in.read(b, off, len);
          if (n > 0) {
            bytesRead.accept(n);
          }
          return n;
        } catch (IOException | RuntimeException e) {
          close();
          throw e;
        }
      }

      @Override
      public long skip(long n) throws IOException {
        long skipped = 0;
        byte[] buf = new byte[8192];
        while (skipped < n) {
          int r = read(buf, 0, (int) Math.min(buf.length, n - skipped));
          if (r < 0) {
            break;
          }
          skipped += r;
        }
        return skipped;
      }

      @Override
      public int available() throws IOException {
        return closed ? 0 : in.available();
      }

      @Override
      public boolean markSupported() {
        return false;
      }

      @Override
      public void close() {
        if (!closed) {
          closed = true;
          try {
            in.close();
          } catch (IOException | RuntimeException ignored) {
            // an abandoned fetch releases its readers without noise
          }
        }
      }
    };
  }
}
