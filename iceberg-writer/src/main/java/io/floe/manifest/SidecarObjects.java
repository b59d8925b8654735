package io.floe.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.iceberg.io.FileIO;

/** Writes and reads a segment's sidecar object through the table's FileIO. */
public final class SidecarObjects {
  private SidecarObjects() {}

  /** Writes {@code bytes} at {@code location}, replacing what a failed earlier copy left there. */
  public static void write(FileIO io, String location, byte[] bytes) {
    try (OutputStream stream = io.newOutputFile(location).createOrOverwrite()) {
      stream.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Writing " + location + " failed", e);
    }
  }

  /**
   * The bytes at {@code location}.
   *
   * @throws org.apache.iceberg.exceptions.NotFoundException when there is no object there
   */
  public static byte[] read(FileIO io, String location) {
    try (InputStream in = io.newInputFile(location).newStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + location + " failed", e);
    }
  }
}
