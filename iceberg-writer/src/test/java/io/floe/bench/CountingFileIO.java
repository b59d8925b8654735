package io.floe.bench;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/** A HadoopFileIO that counts the bytes read through it: the object-store traffic a fetch causes. */
public class CountingFileIO extends HadoopFileIO {
  public static final AtomicLong BYTES_READ = new AtomicLong();

  @Override
  public InputFile newInputFile(String path) {
    return counting(super.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return counting(super.newInputFile(path, length));
  }

  private static InputFile counting(InputFile file) {
    return new InputFile() {
      @Override
      public long getLength() {
        return file.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        SeekableInputStream in = file.newStream();
        return new SeekableInputStream() {
          @Override
          public long getPos() throws IOException {
            return in.getPos();
          }

          @Override
          public void seek(long newPos) throws IOException {
            in.seek(newPos);
          }

          @Override
          public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
              BYTES_READ.incrementAndGet();
            }
            return b;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
              BYTES_READ.addAndGet(n);
            }
            return n;
          }

          @Override
          public void close() throws IOException {
            in.close();
          }
        };
      }

      @Override
      public String location() {
        return file.location();
      }

      @Override
      public boolean exists() {
        return file.exists();
      }
    };
  }
}
