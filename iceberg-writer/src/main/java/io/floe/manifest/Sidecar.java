package io.floe.manifest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.InflaterInputStream;

/**
 * The small object stored beside a segment's data files: what Kafka needs besides the records
 * (indexes, producer snapshot, leader-epoch checkpoint) plus the data-file list and batch directory
 * a fetch re-encodes from.
 *
 * <p>Layout: magic {@code FLOE}, a format version byte, the deflated sections, and a CRC-32C of
 * everything before it. Each section is a type id, a length and its bytes; unknown section ids from
 * newer versions are skipped, so readers stay compatible within a major version.
 */
public final class Sidecar {
  public static final int FORMAT_VERSION = 1;
  private static final byte[] MAGIC = {'F', 'L', 'O', 'E'};

  /** A section of the sidecar. Ids are part of the stored format: never renumber. */
  public enum Section {
    PROPERTIES(1),
    DATA_FILES(2),
    BATCH_DIRECTORY(3),
    OFFSET_INDEX(4),
    TIME_INDEX(5),
    TRANSACTION_INDEX(6),
    PRODUCER_SNAPSHOT(7),
    LEADER_EPOCH_CHECKPOINT(8);

    final int id;

    Section(int id) {
      this.id = id;
    }

    static Section byId(int id) {
      for (Section s : values()) {
        if (s.id == id) {
          return s;
        }
      }
      return null;
    }
  }

  private final Map<Section, byte[]> sections;

  private Sidecar(Map<Section, byte[]> sections) {
    this.sections = sections;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Optional<byte[]> section(Section section) {
    byte[] bytes = sections.get(section);
    return Optional.ofNullable(bytes == null ? null : bytes.clone());
  }

  public byte[] require(Section section) {
    return section(section)
        .orElseThrow(() -> new CorruptSidecarException("Sidecar has no " + section + " section"));
  }

  public String string(Section section) {
    return new String(require(section), StandardCharsets.UTF_8);
  }

  /** The PROPERTIES section as key/value pairs (one {@code key=value} per line). */
  public Map<String, String> properties() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line :
        section(Section.PROPERTIES)
            .map(b -> new String(b, StandardCharsets.UTF_8))
            .orElse("")
            .split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        out.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return out;
  }

  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(MAGIC);
    bytes.write(FORMAT_VERSION);
    // The fastest level: the batch directory of a segment of small records is megabytes, which
    // the default level took about 14% of such a copy's CPU to shrink by a tenth more. Any level
    // reads back the same.
    Deflater deflater = new Deflater(Deflater.BEST_SPEED);
    try (DataOutputStream out =
        new DataOutputStream(new DeflaterOutputStream(new NonClosing(bytes), deflater))) {
      out.writeInt(sections.size());
      for (Map.Entry<Section, byte[]> e : sections.entrySet()) {
        out.writeShort(e.getKey().id);
        out.writeInt(e.getValue().length);
        out.write(e.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      deflater.end();
    }
    CRC32C crc = new CRC32C();
    byte[] body = bytes.toByteArray();
    crc.update(body);
    return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
  }

  public static Sidecar parse(byte[] data) {
    if (data.length < MAGIC.length + 1 + 4
        || !Arrays.equals(Arrays.copyOf(data, MAGIC.length), MAGIC)) {
      throw new CorruptSidecarException(
          "Not a Floe sidecar (bad magic or too short: " + data.length + " bytes)");
    }
    CRC32C crc = new CRC32C();
    crc.update(data, 0, data.length - 4);
    int stored = ByteBuffer.wrap(data, data.length - 4, 4).getInt();
    if ((int) crc.getValue() != stored) {
      throw new CorruptSidecarException(
          "Sidecar checksum mismatch: stored "
              + Integer.toUnsignedString(stored)
              + ", computed "
              + crc.getValue());
    }
    int version = data[MAGIC.length];
    if (version != FORMAT_VERSION) {
      throw new CorruptSidecarException(
          "Sidecar format version "
              + version
              + " is not supported (this Floe reads version "
              + FORMAT_VERSION
              + ")");
    }
    Map<Section, byte[]> sections = new EnumMap<>(Section.class);
    try (DataInputStream in =
        new DataInputStream(
            new InflaterInputStream(
                new ByteArrayInputStream(
                    data, MAGIC.length + 1, data.length - MAGIC.length - 1 - 4)))) {
      int count = in.readInt();
      for (int i = 0; i < count; i++) {
        int id = in.readUnsignedShort();
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        Section section = Section.byId(id);
        if (section != null) {
          sections.put(section, bytes);
        }
      }
    } catch (IOException e) {
      throw new CorruptSidecarException("Sidecar is truncated or corrupt: " + e.getMessage());
    }
    return new Sidecar(sections);
  }

  public static final class Builder {
    private final Map<Section, byte[]> sections = new EnumMap<>(Section.class);

    public Builder put(Section section, byte[] bytes) {
      sections.put(section, bytes.clone());
      return this;
    }

    public Builder put(Section section, ByteBuffer bytes) {
      ByteBuffer dup = bytes.duplicate();
      byte[] copy = new byte[dup.remaining()];
      dup.get(copy);
      sections.put(section, copy);
      return this;
    }

    public Builder put(Section section, String text) {
      sections.put(section, text.getBytes(StandardCharsets.UTF_8));
      return this;
    }

    /**
     * Sets the PROPERTIES section: one {@code key=value} per line; values must not contain line
     * breaks.
     */
    public Builder properties(Map<String, String> properties) {
      StringBuilder text = new StringBuilder();
      properties.forEach(
          (k, v) -> {
            if (k.contains("=") || k.contains("\n") || v.contains("\n")) {
              throw new IllegalArgumentException(
                  "Property " + k + " cannot be stored in a sidecar");
            }
            text.append(k).append('=').append(v).append('\n');
          });
      return put(Section.PROPERTIES, text.toString());
    }

    public Sidecar build() {
      return new Sidecar(new EnumMap<>(sections));
    }
  }

  private static final class NonClosing extends FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
