package io.floe.format;

/**
 * How {@link BatchEncoder} compresses the records section of a re-encoded batch. Each copied
 * segment records the version its indexes were derived from, and fetches re-encode with that
 * version, so segments copied before a change keep being served with positions that match their
 * indexes.
 */
public enum Reencoding {
  /** Every codec through its streaming compressor ({@link Compression#compress}). */
  V1(1),
  /**
   * As V1, except zstd: the whole records section compressed in one call on a reused context (level
   * 3, no checksum). Knowing the input size, zstd sizes its tables to it, several times cheaper
   * than a stream per batch for producer-sized batches; the frame also records the content size.
   */
  V2(2);

  /** What copies use. */
  public static final Reencoding CURRENT = V2;

  private final int version;

  Reencoding(int version) {
    this.version = version;
  }

  public int version() {
    return version;
  }

  /**
   * @throws IllegalArgumentException for a version this Floe does not know (written by a newer one)
   */
  public static Reencoding of(int version) {
    for (Reencoding r : values()) {
      if (r.version == version) {
        return r;
      }
    }
    throw new IllegalArgumentException("Unknown re-encoding version " + version);
  }
}
