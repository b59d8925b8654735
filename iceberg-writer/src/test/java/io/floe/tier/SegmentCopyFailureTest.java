package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.copy.SegmentFormatException;
import io.floe.fetch.StoredSegment;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.manifest.CorruptSidecarException;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input is refused loudly and leaves nothing behind: no snapshot, no data file, no sidecar. */
class SegmentCopyFailureTest {
  private static final String TOPIC = "payments";
  private static final String TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA";

  @TempDir Path dir;

  private Path healthySegment() throws IOException {
    return SegmentGenerator.seeded(3)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 50, 100)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 50, 100)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 50, 100)
        .writeTo(dir.resolve("0.log"));
  }

  @Test
  void corruptBatchIsRefusedAndNothingIsVisible() throws Exception {
    Path log = healthySegment();
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      long at = f.length() - 40; // inside the last batch's records
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0xFF);
    }
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "corrupt");
      assertThatThrownBy(() -> fx.segments.copy(key, SegmentFiles.of(log, 0)))
          .isInstanceOf(SegmentFormatException.class)
          .hasMessageContaining("partition 0")
          .hasMessageContaining("CRC");
      assertNothingLeft(fx, key);
    }
  }

  @Test
  void truncatedSegmentIsRefusedAndNothingIsVisible() throws Exception {
    Path log = healthySegment();
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
      f.setLength(f.length() - 7);
    }
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "truncated");
      assertThatThrownBy(() -> fx.segments.copy(key, SegmentFiles.of(log, 0)))
          .isInstanceOf(SegmentFormatException.class)
          .hasMessageContaining("truncated");
      assertNothingLeft(fx, key);
    }
  }

  @Test
  void legacyMagicIsRefusedAndNothingIsVisible() throws Exception {
    Path log =
        SegmentGenerator.seeded(4)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 10, 100)
            .legacyBatch((byte) 1, Compression.NONE, 3)
            .writeTo(dir.resolve("0.log"));
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "legacy");
      assertThatThrownBy(() -> fx.segments.copy(key, SegmentFiles.of(log, 0)))
          .isInstanceOf(SegmentFormatException.class)
          .hasMessageContaining("magic");
      assertNothingLeft(fx, key);
    }
  }

  @Test
  void corruptSidecarIsReportedOnOpen() throws Exception {
    Path log = healthySegment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "sidecar");
      fx.segments.copy(key, SegmentFiles.of(log, 0));
      Table table = fx.table(TOPIC, TOPIC_ID);
      Path sidecar = Path.of(java.net.URI.create(key.sidecarLocation(table.location())));
      byte[] bytes = Files.readAllBytes(sidecar);
      bytes[bytes.length / 2] ^= 0x01;
      Files.write(sidecar, bytes);
      // Hadoop's local file system keeps its own checksum beside the file: drop it to reach Floe's
      // own check.
      Files.deleteIfExists(sidecar.resolveSibling("." + sidecar.getFileName() + ".crc"));
      assertThatThrownBy(() -> fx.segments.open(key))
          .isInstanceOf(CorruptSidecarException.class)
          .hasMessageContaining("checksum");
    }
  }

  @Test
  void aFetchStillReadingWhenItsSegmentIsClosedIsNotKeptForReuse() throws Exception {
    Path log = healthySegment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "evicted");
      fx.segments.copy(key, SegmentFiles.of(log, 0));
      StoredSegment segment = fx.segments.open(key);
      try (java.io.InputStream in = segment.fetch(0)) {
        in.read();
      }
      try (java.io.InputStream in = segment.fetch(0)) { // continues the kept stream
        in.read();
        segment.close(); // evicted from the plugin's cache while this fetch reads
      }
      assertThat(segment.reusedStreams()).isEqualTo(1);
      try (java.io.InputStream in =
          segment.fetch(0)) { // nothing kept: a fresh stream, still correct
        Batches.assertSameBatches(Batches.read(log), Batches.read(in));
      }
      assertThat(segment.reusedStreams()).isEqualTo(1);
    }
  }

  @Test
  void deletingASegmentThatWasNeverCopiedIsFine() throws Exception {
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      fx.segments.delete(
          new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "never"), true, DeleteReason.EXPIRED);
      assertThatThrownBy(() -> fx.segments.open(new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "never")))
          .isInstanceOf(SegmentNotFoundException.class);
    }
  }

  private static void assertNothingLeft(TableFixture fx, SegmentKey key) throws IOException {
    Table table = fx.table(key.topic(), key.topicId());
    assertThat(table.currentSnapshot()).isNull();
    Path location = Path.of(java.net.URI.create(table.location()));
    try (Stream<Path> files = Files.walk(location)) {
      List<Path> left =
          files
              .filter(Files::isRegularFile)
              .filter(p -> !p.toString().contains("/metadata/"))
              .toList();
      assertThat(left).as("files left under %s", location).isEmpty();
    }
  }
}
