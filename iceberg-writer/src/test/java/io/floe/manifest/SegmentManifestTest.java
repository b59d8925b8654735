package io.floe.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.BatchHeader;
import io.floe.format.OffsetRange;
import io.floe.format.Reencoding;
import io.floe.manifest.Sidecar.Section;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The manifest keeps every field through its bytes, reads what a newer writer of the same format
 * adds, refuses damaged bytes, and reads and writes exactly the sidecars earlier Floe versions
 * wrote.
 */
class SegmentManifestTest {
  private static final byte[] OFFSET_INDEX = {0, 0, 0, 15, 0, 0, 0x13, (byte) 0x88};
  private static final byte[] TIME_INDEX = {0, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0, 4};
  private static final byte[] TXN_INDEX = {0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0};
  private static final byte[] PRODUCER_SNAPSHOT = {9, 8, 7, 6, 5};
  private static final byte[] LEADER_EPOCH = "0\n1\n0 100\n".getBytes(StandardCharsets.UTF_8);
  private static final List<String> DATA_FILES =
      List.of(
          "s3://bucket/warehouse/kafka/orders/data/kafka.partition=3/00003-0-seg-1-00001.parquet",
          "s3://bucket/warehouse/kafka/orders/data/kafka.partition=3/00003-0-seg-1-00002.parquet");

  private static BatchDirectory directory() {
    BatchHeader data =
        new BatchHeader(
            100, 200, 4, (byte) 2, 0x1234, (short) 0x13, 9, 1_000, 1_500, 77, (short) 1, 0, 10);
    BatchHeader marker =
        new BatchHeader(
            110, 66, 4, (byte) 2, 0x5678, (short) 0x30, 0, 1_600, 1_600, 77, (short) 1, -1, 1);
    byte[] raw = new byte[78];
    Arrays.fill(raw, (byte) 0x5A);
    return new BatchDirectory(
        List.of(
            new BatchDirectory.Entry(data, 0, 190, 0xCAFE, null),
            new BatchDirectory.Entry(marker, 212, raw.length, 0x5678, raw)));
  }

  private static SegmentManifest.Builder complete() {
    return SegmentManifest.builder()
        .topic("orders.v1")
        .topicId("fXq3cN6tR0m3Q0nS0b6y1w")
        .partition(3)
        .offsets(new OffsetRange(100, 110))
        .segmentId("seg-1_A")
        .reencoding(Reencoding.V2)
        .dataFiles(DATA_FILES)
        .directory(directory())
        .offsetIndex(ByteBuffer.wrap(OFFSET_INDEX))
        .timeIndex(ByteBuffer.wrap(TIME_INDEX))
        .transactionIndex(ByteBuffer.wrap(TXN_INDEX))
        .producerSnapshot(ByteBuffer.wrap(PRODUCER_SNAPSHOT))
        .leaderEpochCheckpoint(ByteBuffer.wrap(LEADER_EPOCH));
  }

  /** The properties and sections exactly as Floe up to this change built them, keys spelled out. */
  private static Sidecar.Builder previousFloeSidecar(String encodingVersion) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("topic", "orders.v1");
    properties.put("topic-id", "fXq3cN6tR0m3Q0nS0b6y1w");
    properties.put("partition", "3");
    properties.put("base-offset", "100");
    properties.put("last-offset", "110");
    properties.put("segment-id", "seg-1_A");
    properties.put("encoding-version", encodingVersion);
    return Sidecar.builder()
        .properties(properties)
        .put(Section.DATA_FILES, DATA_FILES.get(0) + "\n" + DATA_FILES.get(1) + "\n")
        .put(Section.BATCH_DIRECTORY, directory().serialize())
        .put(Section.OFFSET_INDEX, ByteBuffer.wrap(OFFSET_INDEX))
        .put(Section.TIME_INDEX, ByteBuffer.wrap(TIME_INDEX))
        .put(Section.TRANSACTION_INDEX, ByteBuffer.wrap(TXN_INDEX))
        .put(Section.PRODUCER_SNAPSHOT, ByteBuffer.wrap(PRODUCER_SNAPSHOT))
        .put(Section.LEADER_EPOCH_CHECKPOINT, ByteBuffer.wrap(LEADER_EPOCH));
  }

  @Test
  void everyFieldSurvivesItsBytes() {
    SegmentManifest parsed = SegmentManifest.parse(complete().build().toBytes());

    assertCompleteFields(parsed);
    assertThat(parsed.reencodingVersion()).isEqualTo(2);
    assertThat(parsed.reencoding()).isEqualTo(Reencoding.V2);
    assertThat(parsed.transactionIndex()).contains(ByteBuffer.wrap(TXN_INDEX));
    assertThat(parsed.producerSnapshot()).contains(ByteBuffer.wrap(PRODUCER_SNAPSHOT));
    assertThat(parsed.leaderEpochCheckpoint()).contains(ByteBuffer.wrap(LEADER_EPOCH));
  }

  @Test
  void aTypedSegmentRecordsItsTypedCodecVersionAndABinaryOneNone() {
    assertThat(
            SegmentManifest.parse(complete().typedCodecVersion(1).build().toBytes())
                .typedCodecVersion())
        .isEqualTo(1);
    assertThat(SegmentManifest.parse(complete().build().toBytes()).typedCodecVersion()).isZero();
  }

  @Test
  void optionalPartsStayAbsent() {
    SegmentManifest parsed =
        SegmentManifest.parse(
            complete()
                .transactionIndex(null)
                .producerSnapshot(null)
                .leaderEpochCheckpoint(null)
                .reencoding(Reencoding.V1)
                .build()
                .toBytes());

    assertThat(parsed.transactionIndex()).isEmpty();
    assertThat(parsed.producerSnapshot()).isEmpty();
    assertThat(parsed.leaderEpochCheckpoint()).isEmpty();
    assertThat(parsed.reencoding()).isEqualTo(Reencoding.V1);
    assertThat(parsed.offsetIndex()).isEqualTo(ByteBuffer.wrap(OFFSET_INDEX));
    assertThat(parsed.timeIndex()).isEqualTo(ByteBuffer.wrap(TIME_INDEX));
  }

  @Test
  void aSegmentWithNoBatchRoundTrips() {
    SegmentManifest parsed =
        SegmentManifest.parse(
            complete()
                .offsets(new OffsetRange(500, 499))
                .dataFiles(List.of())
                .directory(new BatchDirectory(List.of()))
                .offsetIndex(ByteBuffer.allocate(0))
                .timeIndex(ByteBuffer.allocate(0))
                .build()
                .toBytes());

    assertThat(parsed.offsets()).isEqualTo(new OffsetRange(500, 499));
    assertThat(parsed.offsets().isEmpty()).isTrue();
    assertThat(parsed.dataFiles()).isEmpty();
    assertThat(parsed.directory().size()).isZero();
    assertThat(parsed.offsetIndex().remaining()).isZero();
  }

  @Test
  void buffersAreCopiedFromTheirPositionAndServedAsFreshReadOnlyViews() {
    ByteBuffer given = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5});
    given.position(2);
    SegmentManifest manifest = complete().offsetIndex(given).build();
    given.put(4, (byte) 99);

    assertThat(given.position()).as("the caller's buffer is left as it was").isEqualTo(2);
    ByteBuffer first = manifest.offsetIndex();
    assertThat(first).isEqualTo(ByteBuffer.wrap(new byte[] {3, 4, 5}));
    assertThat(first.isReadOnly()).isTrue();
    first.get();
    assertThat(manifest.offsetIndex().remaining()).as("a second view starts over").isEqualTo(3);
    assertThatThrownBy(() -> manifest.timeIndex().put(0, (byte) 1))
        .isInstanceOf(ReadOnlyBufferException.class);
  }

  @Test
  void sidecarsAsEarlierFloeWroteThemAreReadAndWrittenIdentically() {
    byte[] previous = previousFloeSidecar("2").build().toBytes();

    SegmentManifest parsed = SegmentManifest.parse(previous);

    assertCompleteFields(parsed);
    assertThat(parsed.reencoding()).isEqualTo(Reencoding.V2);
    assertThat(parsed.transactionIndex()).contains(ByteBuffer.wrap(TXN_INDEX));
    assertThat(parsed.producerSnapshot()).contains(ByteBuffer.wrap(PRODUCER_SNAPSHOT));
    assertThat(parsed.leaderEpochCheckpoint()).contains(ByteBuffer.wrap(LEADER_EPOCH));
    assertThat(complete().build().toBytes())
        .as("an earlier Floe reads what this one writes: the same bytes")
        .isEqualTo(previous);
    assertThat(parsed.toBytes()).isEqualTo(previous);
  }

  @Test
  void theContainerLayoutIsUnchanged() throws IOException {
    Map<Integer, byte[]> sections = new LinkedHashMap<>();
    sections.put(
        1,
        ("topic=orders.v1\ntopic-id=fXq3cN6tR0m3Q0nS0b6y1w\npartition=3\nbase-offset=100\n"
                + "last-offset=110\nsegment-id=seg-1_A\nencoding-version=2\n")
            .getBytes(StandardCharsets.UTF_8));
    sections.put(
        2, (DATA_FILES.get(0) + "\n" + DATA_FILES.get(1) + "\n").getBytes(StandardCharsets.UTF_8));
    sections.put(3, directory().serialize());
    sections.put(4, OFFSET_INDEX);
    sections.put(5, TIME_INDEX);
    sections.put(6, TXN_INDEX);
    sections.put(7, PRODUCER_SNAPSHOT);
    sections.put(8, LEADER_EPOCH);

    assertThat(SegmentManifest.FORMAT_VERSION).isEqualTo(1);
    assertThat(complete().build().toBytes()).isEqualTo(container(1, sections, Deflater.BEST_SPEED));
    // Floe deflated at the default level before: the same container reads the same
    assertCompleteFields(
        SegmentManifest.parse(container(1, sections, Deflater.DEFAULT_COMPRESSION)));
  }

  @Test
  void propertiesAndSectionsOfANewerWriterAreSkipped() throws IOException {
    Map<Integer, byte[]> sections = new LinkedHashMap<>();
    sections.put(
        1,
        ("written-by=floe 9\ntopic=orders.v1\ntopic-id=fXq3cN6tR0m3Q0nS0b6y1w\npartition=3\n"
                + "base-offset=100\nlast-offset=110\nsegment-id=seg-1_A\nencoding-version=2\n")
            .getBytes(StandardCharsets.UTF_8));
    sections.put(
        2, (DATA_FILES.get(0) + "\n" + DATA_FILES.get(1)).getBytes(StandardCharsets.UTF_8));
    sections.put(42, new byte[] {1, 2, 3, 4, 5, 6, 7});
    sections.put(3, directory().serialize());
    sections.put(4, OFFSET_INDEX);
    sections.put(5, TIME_INDEX);
    sections.put(9, "a section from the future".getBytes(StandardCharsets.UTF_8));

    SegmentManifest parsed = SegmentManifest.parse(container(1, sections));

    assertCompleteFields(parsed);
    assertThat(parsed.transactionIndex()).isEmpty();
    assertThat(parsed.producerSnapshot()).isEmpty();
    assertThat(parsed.leaderEpochCheckpoint()).isEmpty();
  }

  @Test
  void anUnknownReencodingVersionIsKeptAndRefusedWhenAskedFor() {
    SegmentManifest parsed = SegmentManifest.parse(previousFloeSidecar("99").build().toBytes());

    assertThat(parsed.reencodingVersion()).isEqualTo(99);
    assertThat(parsed.dataFiles()).as("still readable, so the segment can be deleted").hasSize(2);
    assertThatThrownBy(parsed::reencoding)
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("seg-1_A")
        .hasMessageContaining("re-encoding version 99")
        .hasMessageContaining("would not match the served stream");
    assertThat(SegmentManifest.parse(previousFloeSidecar("1").build().toBytes()).reencoding())
        .isEqualTo(Reencoding.V1);
  }

  @Test
  void aSidecarWithoutAReencodingVersionCanBeDeletedButNotServed() {
    Sidecar.Builder builder = previousFloeSidecar("2");
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("topic", "orders.v1");
    properties.put("topic-id", "fXq3cN6tR0m3Q0nS0b6y1w");
    properties.put("partition", "3");
    properties.put("base-offset", "100");
    properties.put("last-offset", "110");
    properties.put("segment-id", "seg-1_A");
    SegmentManifest parsed =
        SegmentManifest.parse(builder.properties(properties).build().toBytes());

    assertThat(parsed.dataFiles()).as("still readable, so the segment can be deleted").hasSize(2);
    assertThat(parsed.offsets()).isEqualTo(new OffsetRange(100, 110));
    assertThatThrownBy(parsed::reencoding)
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("seg-1_A was copied without a re-encoding version")
        .hasMessageContaining("would not match the served stream");
  }

  @Test
  void damagedBytesAreRefused() {
    byte[] bytes = complete().build().toBytes();

    byte[] flipped = bytes.clone();
    flipped[bytes.length / 2] ^= 0x01;
    assertThatThrownBy(() -> SegmentManifest.parse(flipped))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("checksum");
    assertThatThrownBy(() -> SegmentManifest.parse(Arrays.copyOf(bytes, bytes.length - 9)))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("checksum");
    assertThatThrownBy(() -> SegmentManifest.parse(Arrays.copyOf(bytes, 6)))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("Not a Floe sidecar");
    assertThatThrownBy(() -> SegmentManifest.parse(new byte[0]))
        .isInstanceOf(CorruptSidecarException.class);
  }

  @Test
  void aTruncatedBodyWithAValidChecksumIsRefused() throws IOException {
    byte[] whole = complete().build().toBytes();
    byte[] body = Arrays.copyOfRange(whole, 5, whole.length - 4 - 20);
    ByteArrayOutputStream truncated = new ByteArrayOutputStream();
    truncated.writeBytes(new byte[] {'F', 'L', 'O', 'E', 1});
    truncated.writeBytes(body);

    assertThatThrownBy(() -> SegmentManifest.parse(withCrc(truncated.toByteArray())))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("truncated or corrupt");
  }

  @Test
  void anotherContainerVersionIsRefused() throws IOException {
    assertThatThrownBy(() -> SegmentManifest.parse(container(2, Map.of(1, new byte[0]))))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("format version 2");
  }

  @Test
  void missingOrMalformedFieldsAreRefused() {
    Sidecar.Builder noSegmentId = previousFloeSidecar("2");
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("topic", "orders.v1");
    properties.put("topic-id", "fXq3cN6tR0m3Q0nS0b6y1w");
    properties.put("partition", "3");
    properties.put("base-offset", "100");
    properties.put("last-offset", "110");
    properties.put("encoding-version", "2");
    noSegmentId.properties(properties);
    assertThatThrownBy(() -> SegmentManifest.parse(noSegmentId.build().toBytes()))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("no segment-id property");

    properties.put("segment-id", "seg-1_A");
    properties.put("partition", "three");
    Sidecar.Builder badPartition = previousFloeSidecar("2").properties(properties);
    assertThatThrownBy(() -> SegmentManifest.parse(badPartition.build().toBytes()))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("partition is not a number: three");

    Sidecar.Builder badDirectory =
        previousFloeSidecar("2").put(Section.BATCH_DIRECTORY, new byte[] {0, 0, 0, 1, 0});
    assertThatThrownBy(() -> SegmentManifest.parse(badDirectory.build().toBytes()))
        .isInstanceOf(CorruptSidecarException.class)
        .hasMessageContaining("batch directory")
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void missingSectionsAreRefused() throws IOException {
    for (int missing : new int[] {2, 3, 4, 5}) {
      Map<Integer, byte[]> sections = new LinkedHashMap<>();
      sections.put(
          1,
          ("topic=t\ntopic-id=i\npartition=0\nbase-offset=0\nlast-offset=-1\nsegment-id=s\n"
                  + "encoding-version=2\n")
              .getBytes(StandardCharsets.UTF_8));
      sections.put(2, new byte[0]);
      sections.put(3, new BatchDirectory(List.of()).serialize());
      sections.put(4, new byte[0]);
      sections.put(5, new byte[0]);
      assertThat(SegmentManifest.parse(container(1, sections)).segmentId()).isEqualTo("s");
      sections.remove(missing);
      assertThatThrownBy(() -> SegmentManifest.parse(container(1, sections)))
          .as("without section %d", missing)
          .isInstanceOf(CorruptSidecarException.class)
          .hasMessageContaining("has no");
    }
  }

  @Test
  void theBuilderNamesWhatIsMissing() {
    assertThatThrownBy(() -> complete().segmentId(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("segmentId");
    assertThatThrownBy(() -> complete().timeIndex(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timeIndex");
    assertThatThrownBy(() -> SegmentManifest.builder().build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("topic");
    assertThatThrownBy(() -> complete().dataFiles(List.of("a\nb")).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static void assertCompleteFields(SegmentManifest parsed) {
    assertThat(parsed.topic()).isEqualTo("orders.v1");
    assertThat(parsed.topicId()).isEqualTo("fXq3cN6tR0m3Q0nS0b6y1w");
    assertThat(parsed.partition()).isEqualTo(3);
    assertThat(parsed.offsets()).isEqualTo(new OffsetRange(100, 110));
    assertThat(parsed.segmentId()).isEqualTo("seg-1_A");
    assertThat(parsed.dataFiles()).containsExactlyElementsOf(DATA_FILES);
    assertThat(parsed.directory().serialize()).isEqualTo(directory().serialize());
    assertThat(parsed.directory().get(1).controlBatch())
        .isEqualTo(directory().get(1).controlBatch());
    assertThat(parsed.offsetIndex()).isEqualTo(ByteBuffer.wrap(OFFSET_INDEX));
    assertThat(parsed.timeIndex()).isEqualTo(ByteBuffer.wrap(TIME_INDEX));
  }

  /**
   * A sidecar container written by hand, as its javadoc describes it: magic, version byte, deflated
   * sections (count, then id, length and bytes of each), CRC-32C of all before it.
   */
  private static byte[] container(int version, Map<Integer, byte[]> sections) throws IOException {
    return container(version, sections, Deflater.BEST_SPEED);
  }

  private static byte[] container(int version, Map<Integer, byte[]> sections, int level)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(new byte[] {'F', 'L', 'O', 'E', (byte) version});
    ByteArrayOutputStream deflated = new ByteArrayOutputStream();
    try (DataOutputStream out =
        new DataOutputStream(new DeflaterOutputStream(deflated, new Deflater(level)))) {
      out.writeInt(sections.size());
      for (Map.Entry<Integer, byte[]> section : sections.entrySet()) {
        out.writeShort(section.getKey());
        out.writeInt(section.getValue().length);
        out.write(section.getValue());
      }
    }
    bytes.writeBytes(deflated.toByteArray());
    return withCrc(bytes.toByteArray());
  }

  private static byte[] withCrc(byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
  }
}
