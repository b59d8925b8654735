package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.commit.SegmentCommitter;
import io.floe.fetch.StoredSegment;
import io.floe.format.BatchEncoder;
import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.format.TimestampType;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.CorruptSidecarException;
import io.floe.manifest.Sidecar;
import io.floe.manifest.Sidecar.Section;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments keep being served with the re-encoding their indexes were derived from: an earlier
 * version's copies still fetch exactly, and a sidecar whose recorded version does not match its
 * layout fails loudly instead of serving shifted positions.
 */
class ReencodingVersionTest {
  private static final String TOPIC = "clicks";
  private static final String TOPIC_ID = "BBBBBBBBBBBBBBBBBBBBBB";

  /**
   * The sidecar property every Floe since the first re-encoding guard stores the version under:
   * spelled out here, not taken from the code under test, so that renaming it fails this test.
   */
  private static final String ENCODING_VERSION_KEY = "encoding-version";

  @TempDir Path dir;

  private Path segment() throws IOException {
    return SegmentGenerator.seeded(21)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 40, 300)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 10, 100)
        .batch(Compression.ZSTD, TimestampType.LOG_APPEND_TIME, 60, 500)
        .batch(Compression.LZ4, TimestampType.CREATE_TIME, 20, 200)
        .writeTo(dir.resolve("0.log"));
  }

  @Test
  void segmentsCopiedWithAnEarlierReencodingAreStillServedExactly() throws Exception {
    Path log = segment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      TieredSegments v1 =
          new TieredSegments(
              fx.tables,
              new SegmentCommitter(),
              BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
              Reencoding.V1);
      SegmentKey old = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "copied-by-v1");
      v1.copy(old, SegmentFiles.of(log, 0));
      SegmentKey v2Key = new SegmentKey(TOPIC, TOPIC_ID, 1, 0, "copied-by-v2");
      copier(fx, Reencoding.V2).copy(v2Key, SegmentFiles.of(log, 0));
      SegmentKey current = new SegmentKey(TOPIC, TOPIC_ID, 2, 0, "copied-now");
      fx.segments.copy(current, SegmentFiles.of(log, 0));

      StoredSegment oldSegment = fx.segments.open(old);
      StoredSegment v2Segment = fx.segments.open(v2Key);
      StoredSegment newSegment = fx.segments.open(current);
      assertThat(oldSegment.reencoding()).isEqualTo(Reencoding.V1);
      assertThat(v2Segment.reencoding()).isEqualTo(Reencoding.V2);
      assertThat(newSegment.reencoding()).isEqualTo(Reencoding.CURRENT).isEqualTo(Reencoding.V3);
      assertThat(v2Segment.directory().encodedSize())
          .as("zstd batches re-encode to other bytes under V2")
          .isNotEqualTo(oldSegment.directory().encodedSize());
      for (StoredSegment segment : List.of(oldSegment, v2Segment, newSegment)) {
        fx.assertServesExactly(
            new SegmentKey(
                TOPIC, TOPIC_ID, segment.manifest().partition(), 0, segment.manifest().segmentId()),
            log);
        assertEveryPositionStartsItsBatch(segment);
      }
      assertServedLayoutMatchesDirectory(oldSegment);
      assertServedLayoutMatchesDirectory(v2Segment);
      List<Long> positions = Batches.lowerBoundPositions(Batches.read(log));
      for (int i = 0; i < newSegment.directory().size(); i++) {
        assertThat(newSegment.directory().encodedPosition(i))
            .as("V3: batch %d at its lower-bound position", i)
            .isEqualTo(positions.get(i));
      }
    }
  }

  @Test
  void aV2SegmentLabelledV3FailsTheFetchLoudly() throws Exception {
    Path log = segment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "v2-as-v3");
      copier(fx, Reencoding.V2).copy(key, SegmentFiles.of(log, 0));
      assertFetchFailsLabelled(fx, key, Reencoding.V3, "no longer holds its records exactly");
    }
  }

  /** Relabels a copied segment's re-encoding version: its fetch fails with {@code message}. */
  private static void assertFetchFailsLabelled(
      TableFixture fx, SegmentKey key, Reencoding label, String message) throws IOException {
    rewriteProperties(
        fx,
        key,
        p -> {
          p.put(ENCODING_VERSION_KEY, Integer.toString(label.version()));
          return p;
        });
    StoredSegment segment = fx.segments.open(key);
    assertThat(segment.reencoding()).isEqualTo(label);
    assertThatThrownBy(
            () -> {
              try (InputStream in = segment.fetch(0)) {
                in.readAllBytes();
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aBoundedFetchEndsAfterItsBytesForV2AndAfterWholeBatchesForV3() throws Exception {
    Path log = segment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey v2Key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "bounded-v2");
      copier(fx, Reencoding.V2).copy(v2Key, SegmentFiles.of(log, 0));
      SegmentKey v3Key = new SegmentKey(TOPIC, TOPIC_ID, 1, 0, "bounded-v3");
      fx.segments.copy(v3Key, SegmentFiles.of(log, 0));
      StoredSegment v2 = fx.segments.open(v2Key);
      StoredSegment v3 = fx.segments.open(v3Key);
      byte[] v2Full = v2.fetch(0).readAllBytes();
      byte[] v3Full = v3.fetch(0).readAllBytes();

      assertThat(v2.fetch(10, 109).readAllBytes())
          .isEqualTo(
              java.util.Arrays.copyOfRange(
                  v2Full,
                  (int) v2.directory().encodedPosition(1),
                  (int) v2.directory().encodedPosition(1)
                      + 100)); // 10 is inside batch 0: from batch 1
      BatchDirectory directory = v3.directory();
      long second = directory.encodedPosition(1);
      List<RecordBatch> served = Batches.read(new java.io.ByteArrayInputStream(v3Full));
      int secondServed = served.get(0).header().sizeInBytes();
      int thirdServed = secondServed + served.get(1).header().sizeInBytes();
      assertThat(v3.fetch(0, second - 1).readAllBytes())
          .as("only batch 0 starts at or before the end")
          .isEqualTo(java.util.Arrays.copyOf(v3Full, secondServed));
      assertThat(v3.fetch(0, second).readAllBytes())
          .as("batch 1 starts at the end: it is served whole")
          .isEqualTo(java.util.Arrays.copyOf(v3Full, thirdServed));
      assertThat(v3.fetch(second, directory.encodedSize() + 100).readAllBytes())
          .isEqualTo(java.util.Arrays.copyOfRange(v3Full, secondServed, v3Full.length));
      assertThat(v3.fetch(directory.encodedSize(), directory.encodedSize() + 10).read())
          .isEqualTo(-1);
    }
  }

  private static TieredSegments copier(TableFixture fx, Reencoding reencoding) {
    return new TieredSegments(
        fx.tables, new SegmentCommitter(), BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES, reencoding);
  }

  /** Fetching from each batch's directory position serves that batch first. */
  private static void assertEveryPositionStartsItsBatch(StoredSegment segment) throws IOException {
    BatchDirectory directory = segment.directory();
    for (int i = 0; i < directory.size(); i++) {
      try (InputStream in = segment.fetch(directory.encodedPosition(i))) {
        RecordBatch first = Batches.read(in).get(0);
        assertThat(first.header().baseOffset()).isEqualTo(directory.get(i).header().baseOffset());
      }
    }
  }

  @Test
  void aSidecarWhoseVersionDoesNotMatchItsLayoutFailsTheFetchLoudly() throws Exception {
    Path log = segment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "mislabelled");
      fx.segments.copy(key, SegmentFiles.of(log, 0));
      assertFetchFailsLabelled(fx, key, Reencoding.V1, "would not match the stream");
    }
  }

  @Test
  void anUnknownVersionIsRefusedOnOpen() throws Exception {
    Path log = segment();
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "from-the-future");
      fx.segments.copy(key, SegmentFiles.of(log, 0));
      rewriteProperties(
          fx,
          key,
          p -> {
            p.put(ENCODING_VERSION_KEY, "99");
            return p;
          });
      assertThatThrownBy(() -> fx.segments.open(key))
          .isInstanceOf(CorruptSidecarException.class)
          .hasMessageContaining("re-encoding version 99");
      // Deleting needs no re-encoding: a segment this Floe cannot serve can still be deleted.
      fx.segments.delete(key, true, DeleteReason.EXPIRED);
      assertThat(TableFixture.rows(fx.table(TOPIC, TOPIC_ID))).isEmpty();
      assertThatThrownBy(() -> fx.segments.open(key)).isInstanceOf(SegmentNotFoundException.class);
    }
  }

  @Test
  void zstdReencodingIsTheSameOnEveryThreadAndContext() throws Exception {
    List<RecordBatch> batches = Batches.read(segment());
    RecordBatch zstd = batches.get(2);
    assertThat(zstd.header().compression()).isEqualTo(Compression.ZSTD);
    ByteBuffer expected = BatchEncoder.encode(zstd.header(), zstd.records());
    assertThat(expected)
        .isNotEqualTo(BatchEncoder.encode(zstd.header(), zstd.records(), Reencoding.V1));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> results = new java.util.ArrayList<>();
      for (int t = 0; t < 32; t++) {
        results.add(
            pool.submit(
                () -> {
                  boolean same = true;
                  for (int i = 0; i < 50; i++) {
                    // interleave other inputs so that contexts are reused after compressing
                    // something else
                    BatchEncoder.encode(batches.get(0).header(), batches.get(0).records());
                    same &= BatchEncoder.encode(zstd.header(), zstd.records()).equals(expected);
                  }
                  return same;
                }));
      }
      for (Future<Boolean> r : results) {
        assertThat(r.get()).isTrue();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static void assertServedLayoutMatchesDirectory(StoredSegment segment) throws IOException {
    BatchDirectory directory = segment.directory();
    for (int i = 0; i < directory.size(); i++) {
      try (InputStream in = segment.fetch(directory.encodedPosition(i))) {
        RecordBatch first = Batches.read(in).get(0);
        assertThat(first.header().baseOffset()).isEqualTo(directory.get(i).header().baseOffset());
        assertThat(first.header().sizeInBytes()).isEqualTo(directory.get(i).encodedSize());
      }
    }
  }

  private static void rewriteProperties(
      TableFixture fx, SegmentKey key, UnaryOperator<Map<String, String>> change)
      throws IOException {
    Table table = fx.table(TOPIC, TOPIC_ID);
    Path file = Path.of(java.net.URI.create(key.sidecarLocation(table.location())));
    Sidecar sidecar = Sidecar.parse(Files.readAllBytes(file));
    Sidecar.Builder builder =
        Sidecar.builder().properties(change.apply(new HashMap<>(sidecar.properties())));
    for (Section section : Section.values()) {
      if (section != Section.PROPERTIES) {
        sidecar.section(section).ifPresent(bytes -> builder.put(section, bytes));
      }
    }
    Files.write(file, builder.build().toBytes());
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }
}
