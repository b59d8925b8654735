package io.floe.manifest;

import io.floe.format.OffsetRange;
import io.floe.format.Reencoding;
import io.floe.manifest.Sidecar.Section;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What Floe stores beside one copied segment, as typed fields: which segment it is, the re-encoding
 * its indexes were derived from, the data files and batch directory a fetch re-encodes from, and
 * the indexes and snapshots Kafka asks for. Stored as a {@link Sidecar}: the properties section
 * holds the scalar fields, one section each holds the rest.
 *
 * <p>The property keys, their order and the section ids are the stored format of {@link
 * #FORMAT_VERSION}: {@link #toBytes()} writes the same bytes earlier Floe versions wrote for the
 * same segment, and {@link #parse} skips properties and sections it does not know (a newer Floe may
 * add them within the same version).
 */
public final class SegmentManifest {
  /** The version of the stored format: the version byte of the sidecar container. */
  public static final int FORMAT_VERSION = Sidecar.FORMAT_VERSION;

  private static final String TOPIC = "topic";
  private static final String TOPIC_ID = "topic-id";
  private static final String PARTITION = "partition";
  private static final String BASE_OFFSET = "base-offset";
  private static final String LAST_OFFSET = "last-offset";
  private static final String SEGMENT_ID = "segment-id";
  private static final String REENCODING_VERSION = "encoding-version";
  private static final String TYPED_CODEC_VERSION = "typed-codec-version";

  /**
   * Sidecars of the earliest Floe builds recorded no re-encoding version: such a segment cannot be
   * served (its indexes may not match), but Kafka must still be able to delete it.
   */
  private static final int UNRECORDED_VERSION = 0;

  private static final List<Section> OPTIONAL_BLOBS =
      List.of(
          Section.TRANSACTION_INDEX, Section.PRODUCER_SNAPSHOT, Section.LEADER_EPOCH_CHECKPOINT);

  private final String topic;
  private final String topicId;
  private final int partition;
  private final OffsetRange offsets;
  private final String segmentId;
  private final int reencodingVersion;
  private final int typedCodecVersion;
  private final List<String> dataFiles;
  private final BatchDirectory directory;

  /** The indexes and snapshots, each as Kafka gave it: stored, and served, as they are. */
  private final Map<Section, byte[]> blobs;

  private SegmentManifest(
      String topic,
      String topicId,
      int partition,
      OffsetRange offsets,
      String segmentId,
      int reencodingVersion,
      int typedCodecVersion,
      List<String> dataFiles,
      BatchDirectory directory,
      Map<Section, byte[]> blobs) {
    this.typedCodecVersion = typedCodecVersion;
    this.topic = topic;
    this.topicId = topicId;
    this.partition = partition;
    this.offsets = offsets;
    this.segmentId = segmentId;
    this.reencodingVersion = reencodingVersion;
    this.dataFiles = List.copyOf(dataFiles);
    this.directory = directory;
    this.blobs = new EnumMap<>(blobs);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String topic() {
    return topic;
  }

  public String topicId() {
    return topicId;
  }

  public int partition() {
    return partition;
  }

  /** The segment's base offset to its last offset (empty for a segment with no batch). */
  public OffsetRange offsets() {
    return offsets;
  }

  public String segmentId() {
    return segmentId;
  }

  /** The re-encoding version as stored, possibly one this Floe does not know. */
  public int reencodingVersion() {
    return reencodingVersion;
  }

  /**
   * The version of the code that typed the segment's keys and values and re-encodes them on fetch;
   * 0 for a table with binary keys and values.
   */
  public int typedCodecVersion() {
    return typedCodecVersion;
  }

  /**
   * The re-encoding the segment's indexes were derived from: fetches re-encode the same way, so
   * segments copied by an earlier Floe keep being served.
   *
   * @throws CorruptSidecarException for a version this Floe does not know: serving it would give
   *     indexes that do not match the stream
   */
  public Reencoding reencoding() {
    try {
      return Reencoding.of(reencodingVersion);
    } catch (IllegalArgumentException e) {
      throw new CorruptSidecarException(
          "Segment "
              + segmentId
              + (reencodingVersion == UNRECORDED_VERSION
                  ? " was copied without a re-encoding version"
                  : " was copied with re-encoding version " + reencodingVersion)
              + ", this Floe re-encodes with versions up to "
              + Reencoding.CURRENT.version()
              + ": its indexes would not match the served stream",
          e);
    }
  }

  /** Locations of the data files the copy wrote, in the order it wrote them. */
  public List<String> dataFiles() {
    return dataFiles;
  }

  public BatchDirectory directory() {
    return directory;
  }

  public ByteBuffer offsetIndex() {
    return view(Section.OFFSET_INDEX).orElseThrow();
  }

  public ByteBuffer timeIndex() {
    return view(Section.TIME_INDEX).orElseThrow();
  }

  public Optional<ByteBuffer> transactionIndex() {
    return view(Section.TRANSACTION_INDEX);
  }

  public Optional<ByteBuffer> producerSnapshot() {
    return view(Section.PRODUCER_SNAPSHOT);
  }

  public Optional<ByteBuffer> leaderEpochCheckpoint() {
    return view(Section.LEADER_EPOCH_CHECKPOINT);
  }

  /** A fresh read-only view each time: callers read it from its start. */
  private Optional<ByteBuffer> view(Section section) {
    return Optional.ofNullable(blobs.get(section)).map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  /** The sidecar object to store beside the segment's data files. */
  public byte[] toBytes() {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(TOPIC, topic);
    properties.put(TOPIC_ID, topicId);
    properties.put(PARTITION, Integer.toString(partition));
    properties.put(BASE_OFFSET, Long.toString(offsets.first()));
    properties.put(LAST_OFFSET, Long.toString(offsets.last()));
    properties.put(SEGMENT_ID, segmentId);
    properties.put(REENCODING_VERSION, Integer.toString(reencodingVersion));
    if (typedCodecVersion > 0) {
      properties.put(TYPED_CODEC_VERSION, Integer.toString(typedCodecVersion));
    }
    StringBuilder files = new StringBuilder();
    for (String location : dataFiles) {
      files.append(location).append('\n');
    }
    Sidecar.Builder sidecar =
        Sidecar.builder()
            .properties(properties)
            .put(Section.DATA_FILES, files.toString())
            .put(Section.BATCH_DIRECTORY, directory.serialize());
    blobs.forEach(sidecar::put);
    return sidecar.build().toBytes();
  }

  /**
   * Reads a stored sidecar. A re-encoding version this Floe does not know is kept as it is (the
   * segment can still be deleted); {@link #reencoding()} refuses it.
   *
   * @throws CorruptSidecarException when the bytes are not a sidecar of this format version, or a
   *     property or section the manifest needs is missing or malformed
   */
  public static SegmentManifest parse(byte[] bytes) {
    Sidecar sidecar = Sidecar.parse(bytes);
    Map<String, String> properties = sidecar.properties();
    List<String> dataFiles = dataFiles(sidecar);
    BatchDirectory directory;
    try {
      directory = BatchDirectory.deserialize(sidecar.require(Section.BATCH_DIRECTORY));
    } catch (IllegalArgumentException e) {
      throw new CorruptSidecarException("Sidecar's batch directory cannot be read", e);
    }
    Map<Section, byte[]> blobs = new EnumMap<>(Section.class);
    blobs.put(Section.OFFSET_INDEX, sidecar.require(Section.OFFSET_INDEX));
    blobs.put(Section.TIME_INDEX, sidecar.require(Section.TIME_INDEX));
    for (Section optional : OPTIONAL_BLOBS) {
      sidecar.section(optional).ifPresent(b -> blobs.put(optional, b));
    }
    return new SegmentManifest(
        property(properties, TOPIC),
        property(properties, TOPIC_ID),
        integer(properties, PARTITION),
        new OffsetRange(number(properties, BASE_OFFSET), number(properties, LAST_OFFSET)),
        property(properties, SEGMENT_ID),
        properties.containsKey(REENCODING_VERSION)
            ? integer(properties, REENCODING_VERSION)
            : UNRECORDED_VERSION,
        properties.containsKey(TYPED_CODEC_VERSION) ? integer(properties, TYPED_CODEC_VERSION) : 0,
        dataFiles,
        directory,
        blobs);
  }

  private static String property(Map<String, String> properties, String key) {
    String value = properties.get(key);
    if (value == null) {
      throw new CorruptSidecarException("Sidecar has no " + key + " property");
    }
    return value;
  }

  private static long number(Map<String, String> properties, String key) {
    String value = property(properties, key);
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw notANumber(key, value, e);
    }
  }

  private static int integer(Map<String, String> properties, String key) {
    String value = property(properties, key);
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw notANumber(key, value, e);
    }
  }

  private static CorruptSidecarException notANumber(String key, String value, Exception cause) {
    return new CorruptSidecarException(
        "Sidecar property " + key + " is not a number: " + value, cause);
  }

  /**
   * Only the data files a sidecar names, without decoding its indexes (snapshot expiry reads every
   * live sidecar of a table).
   *
   * @throws CorruptSidecarException when the bytes are not a sidecar of this format version
   */
  public static List<String> dataFilesOf(byte[] bytes) {
    return dataFiles(Sidecar.parse(bytes));
  }

  private static List<String> dataFiles(Sidecar sidecar) {
    List<String> dataFiles = new ArrayList<>();
    for (String line : sidecar.string(Section.DATA_FILES).split("\n")) {
      if (!line.isEmpty()) {
        dataFiles.add(line);
      }
    }
    return dataFiles;
  }

  @Override
  public String toString() {
    return String.format(
        "SegmentManifest[segment %s of %s-%d, offsets %s, re-encoding version %d, %d data files]",
        segmentId, topic, partition, offsets, reencodingVersion, dataFiles.size());
  }

  /**
   * Builds the manifest of a segment being copied; every field but the optional parts is needed.
   */
  public static final class Builder {
    private String topic;
    private String topicId;
    private Integer partition;
    private OffsetRange offsets;
    private String segmentId;
    private Reencoding reencoding;
    private int typedCodecVersion;
    private List<String> dataFiles;
    private BatchDirectory directory;
    private final Map<Section, byte[]> blobs = new EnumMap<>(Section.class);

    private Builder() {}

    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    public Builder topicId(String topicId) {
      this.topicId = topicId;
      return this;
    }

    public Builder partition(int partition) {
      this.partition = partition;
      return this;
    }

    public Builder offsets(OffsetRange offsets) {
      this.offsets = offsets;
      return this;
    }

    public Builder segmentId(String segmentId) {
      this.segmentId = segmentId;
      return this;
    }

    public Builder reencoding(Reencoding reencoding) {
      this.reencoding = reencoding;
      return this;
    }

    /** The typed codec version of a table with typed keys or values; 0 (the default) if none. */
    public Builder typedCodecVersion(int version) {
      this.typedCodecVersion = version;
      return this;
    }

    public Builder dataFiles(List<String> locations) {
      this.dataFiles = List.copyOf(locations);
      return this;
    }

    public Builder directory(BatchDirectory directory) {
      this.directory = directory;
      return this;
    }

    public Builder offsetIndex(ByteBuffer index) {
      return section(Section.OFFSET_INDEX, index);
    }

    public Builder timeIndex(ByteBuffer index) {
      return section(Section.TIME_INDEX, index);
    }

    /** The segment's transaction index; null when it has none. */
    public Builder transactionIndex(ByteBuffer index) {
      return section(Section.TRANSACTION_INDEX, index);
    }

    /** The producer snapshot; null when there is none. */
    public Builder producerSnapshot(ByteBuffer snapshot) {
      return section(Section.PRODUCER_SNAPSHOT, snapshot);
    }

    /** The leader-epoch checkpoint; null when there is none. */
    public Builder leaderEpochCheckpoint(ByteBuffer checkpoint) {
      return section(Section.LEADER_EPOCH_CHECKPOINT, checkpoint);
    }

    /** Copies the remaining bytes of {@code bytes}, leaving its position as it is. */
    private Builder section(Section section, ByteBuffer bytes) {
      if (bytes == null) {
        blobs.remove(section);
      } else {
        byte[] copy = new byte[bytes.remaining()];
        bytes.duplicate().get(copy);
        blobs.put(section, copy);
      }
      return this;
    }

    /**
     * @throws NullPointerException when a needed field is not set
     * @throws IllegalArgumentException when a data file location is empty or has a line break (it
     *     could not be stored)
     */
    public SegmentManifest build() {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(topicId, "topicId");
      Objects.requireNonNull(partition, "partition");
      Objects.requireNonNull(offsets, "offsets");
      Objects.requireNonNull(segmentId, "segmentId");
      Objects.requireNonNull(reencoding, "reencoding");
      Objects.requireNonNull(dataFiles, "dataFiles");
      Objects.requireNonNull(directory, "directory");
      Objects.requireNonNull(blobs.get(Section.OFFSET_INDEX), "offsetIndex");
      Objects.requireNonNull(blobs.get(Section.TIME_INDEX), "timeIndex");
      for (String location : dataFiles) {
        if (location.isEmpty() || location.contains("\n")) {
          throw new IllegalArgumentException(
              "Data file location '" + location + "' cannot be stored in a sidecar");
        }
      }
      return new SegmentManifest(
          topic,
          topicId,
          partition,
          offsets,
          segmentId,
          reencoding.version(),
          typedCodecVersion,
          dataFiles,
          directory,
          blobs);
    }
  }
}
