package io.floe.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO that counts the bytes read through it (the object-store traffic a fetch causes) and
 * delegates everything to the FileIO named by {@code counting.delegate-impl} (HadoopFileIO by
 * default).
 */
public class CountingFileIO implements FileIO {
  public static final String DELEGATE = "counting.delegate-impl";
  public static final AtomicLong BYTES_READ = new AtomicLong();

  private FileIO delegate;
  private Map<String, String> properties;

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = new HashMap<>(props);
    String impl = props.getOrDefault(DELEGATE, "org.apache.iceberg.hadoop.HadoopFileIO");
    this.delegate = CatalogUtil.loadFileIO(impl, props, new org.apache.hadoop.conf.Configuration());
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String path) {
    return counting(delegate.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return counting(delegate.newInputFile(path, length));
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    delegate.deleteFile(path);
  }

  @Override
  public void close() {
    delegate.close();
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
