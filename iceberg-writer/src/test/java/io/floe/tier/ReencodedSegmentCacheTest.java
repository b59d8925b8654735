package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.fetch.FetchResources;
import io.floe.fetch.ReadAheadPool;
import io.floe.fetch.ReencodedSegmentCache;
import io.floe.fetch.StoredSegment;
import io.floe.format.BatchHeader;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.TableCodecs;
import io.floe.testing.Batches;
import io.floe.testing.CatchUp;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment fetched from its first batch to its last is kept on local disk and later fetches read
 * it from there, byte for byte what re-encoding gives; anything else (a partial read, a read that
 * skips, a deleted segment, a damaged file) leaves nothing cached and is served by re-encoding.
 */
class ReencodedSegmentCacheTest {
  private static final String TOPIC = "replays";
  private static final String TOPIC_ID = "CCCCCCCCCCCCCCCCCCCCCC";
  private static final int FETCH_BYTES = 4096;

  @TempDir Path dir;

  private Path segment(String name, long seed) throws IOException {
    return SegmentGenerator.seeded(seed)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 40, 300)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 30, 200)
        .batch(Compression.LZ4, TimestampType.LOG_APPEND_TIME, 60, 500)
        .batch(Compression.GZIP, TimestampType.CREATE_TIME, 20, 200)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 50, 400)
        .writeTo(dir.resolve(name));
  }

  private static TieredSegments cached(TableFixture fx, ReencodedSegmentCache cache) {
    return new TieredSegments(
        fx.tables,
        new SegmentCommitter(),
        BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
        TableCodecs.withoutRegistry(),
        new FetchResources(cache, ReadAheadPool.shared()));
  }

  /** Reads the whole segment as the broker does, a few KiB per fetch. */
  private static byte[] catchUp(StoredSegment stored) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    CatchUp.read(stored, FETCH_BYTES, all);
    return all.toByteArray();
  }

  /** Where batch {@code batch} starts in a served stream. */
  private static int start(byte[] stream, int batch) {
    int at = 0;
    for (int i = 0; i < batch; i++) {
      at += BatchHeader.LOG_OVERHEAD + ByteBuffer.wrap(stream).getInt(at + 8);
    }
    return at;
  }

  private static byte[] readAll(StoredSegment stored, long position) throws IOException {
    try (InputStream in = stored.fetch(position)) {
      return in.readAllBytes();
    }
  }

  private List<Path> files(Path cacheDir) throws IOException {
    try (Stream<Path> s = Files.list(cacheDir)) {
      return s.sorted().toList();
    }
  }

  @Test
  void aSegmentReadToItsEndIsServedFromTheCacheExactlyEvenWithoutItsDataFiles() throws Exception {
    Path log = segment("0.log", 31);
    Path cacheDir = dir.resolve("cache");
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL);
        ReencodedSegmentCache cache = ReencodedSegmentCache.in(cacheDir, 64L << 20)) {
      TieredSegments segments = cached(fx, cache);
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "seg-a");
      segments.copy(key, SegmentFiles.of(log, 0));
      byte[] reencoded = readAll(fx.segments.open(key), 0); // no cache: re-encoded

      StoredSegment first = segments.open(key);
      assertThat(catchUp(first)).isEqualTo(reencoded);
      first.close();
      BatchDirectory directory = first.directory();
      assertThat(cache.stats().segments()).isEqualTo(1);
      assertThat(cache.stats().bytes()).isEqualTo(reencoded.length);

      // From here on, nothing can be re-encoded: the table's files are gone.
      for (String location : first.dataFiles()) {
        fx.tables.find(TOPIC, TOPIC_ID).io().deleteFile(location);
      }
      long hits = cache.stats().hits();
      StoredSegment again = segments.open(key);
      assertThat(readAll(again, 0)).isEqualTo(reencoded);
      Batches.assertSameBatches(Batches.read(log), Batches.read(again.fetch(0)));
      int third = 3;
      long position = directory.encodedPosition(third);
      byte[] fromThird = readAll(again, position - 1); // a position inside batch 2: from batch 3
      assertThat(fromThird)
          .isEqualTo(
              java.util.Arrays.copyOfRange(reencoded, start(reencoded, third), reencoded.length));
      assertThat(cache.stats().hits() - hits).isEqualTo(3);
    }
  }

  @Test
  void aReadThatStopsOrSkipsLeavesNothingCached() throws Exception {
    Path log = segment("0.log", 32);
    Path cacheDir = dir.resolve("cache");
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL);
        ReencodedSegmentCache cache = ReencodedSegmentCache.in(cacheDir, 64L << 20)) {
      TieredSegments segments = cached(fx, cache);
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "seg-b");
      segments.copy(key, SegmentFiles.of(log, 0));
      StoredSegment stored = segments.open(key);
      BatchDirectory directory = stored.directory();
      try (InputStream in = stored.fetch(0)) {
        in.readNBytes(100); // part of batch 0, then the stream is kept
      }
      byte[] fromThird = readAll(stored, directory.encodedPosition(3)); // skips batches 1 and 2
      assertThat(Batches.read(new ByteArrayInputStream(fromThird)).get(0).header().baseOffset())
          .isEqualTo(directory.get(3).header().baseOffset());
      stored.close(); // releases the kept stream and its unfinished fill
      assertThat(cache.stats().segments()).isZero();
      assertThat(files(cacheDir)).isEmpty();
      // read whole afterwards, it is cached
      StoredSegment whole = segments.open(key);
      readAll(whole, 0);
      whole.close();
      assertThat(cache.stats().segments()).isEqualTo(1);
    }
  }

  @Test
  void leastRecentlyUsedSegmentsLeaveOverTheLimitAndDeletedOnesAtOnce() throws Exception {
    Path cacheDir = dir.resolve("cache");
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      List<SegmentKey> keys =
          List.of(
              new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "seg-1"),
              new SegmentKey(TOPIC, TOPIC_ID, 1, 0, "seg-2"),
              new SegmentKey(TOPIC, TOPIC_ID, 2, 0, "seg-3"));
      for (int i = 0; i < keys.size(); i++) {
        fx.segments.copy(keys.get(i), SegmentFiles.of(segment(i + ".log", 40 + i), 0));
      }
      long largest = 0;
      for (SegmentKey key : keys) {
        largest = Math.max(largest, readAll(fx.segments.open(key), 0).length); // uncached
      }
      try (ReencodedSegmentCache cache = ReencodedSegmentCache.in(cacheDir, largest * 2)) {
        TieredSegments segments = cached(fx, cache);
        readAll(segments.open(keys.get(0)), 0);
        readAll(segments.open(keys.get(1)), 0);
        readAll(segments.open(keys.get(0)), 0); // a hit: seg-1 is now the most recently used
        readAll(segments.open(keys.get(2)), 0); // over the limit: seg-2 leaves
        assertThat(cache.stats().evictions()).isEqualTo(1);
        assertThat(cache.stats().segments()).isEqualTo(2);
        assertThat(cache.stats().bytes()).isLessThanOrEqualTo(largest * 2);
        assertThat(files(cacheDir)).hasSize(2);
        long hits = cache.stats().hits();
        readAll(segments.open(keys.get(1)), 0);
        assertThat(cache.stats().hits()).isEqualTo(hits); // seg-2 was re-encoded, and cached
        assertThat(cache.stats().evictions()).isEqualTo(2); // seg-1 left: least recently used
        assertThat(readAll(segments.open(keys.get(0)), 0)).isNotEmpty();
        assertThat(cache.stats().hits()).isEqualTo(hits); // so seg-1 was re-encoded too

        segments.delete(keys.get(0), true, DeleteReason.EXPIRED);
        assertThat(cache.stats().segments()).isEqualTo(1);
        assertThat(files(cacheDir)).hasSize(1);
      }
      assertThat(files(cacheDir)).isEmpty(); // close empties the folder
    }
  }

  @Test
  void aDamagedCacheFileIsDroppedAndTheSegmentReencoded() throws Exception {
    Path log = segment("0.log", 33);
    Path cacheDir = dir.resolve("cache");
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL);
        ReencodedSegmentCache cache = ReencodedSegmentCache.in(cacheDir, 64L << 20)) {
      TieredSegments segments = cached(fx, cache);
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "seg-c");
      segments.copy(key, SegmentFiles.of(log, 0));
      byte[] reencoded = readAll(segments.open(key), 0);
      Path file = files(cacheDir).get(0);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(channel.size() / 2);
      }
      assertThat(readAll(segments.open(key), 0)).isEqualTo(reencoded);
      assertThat(cache.stats().hits()).isZero();
      // the re-encoding that served it filled the cache again, whole
      assertThat(Files.size(files(cacheDir).get(0))).isEqualTo(reencoded.length);
    }
  }

  @Test
  void cacheFilesAnEarlierRunLeftAreRemovedAndOtherFilesKept() throws Exception {
    Path cacheDir = Files.createDirectories(dir.resolve("cache"));
    Files.writeString(cacheDir.resolve("c2VnLWE.segment"), "old");
    Files.writeString(cacheDir.resolve("c2VnLWI.partial"), "half");
    Files.writeString(cacheDir.resolve("notes.txt"), "not ours");
    try (ReencodedSegmentCache cache = ReencodedSegmentCache.in(cacheDir, 1 << 20)) {
      assertThat(files(cacheDir)).containsExactly(cacheDir.resolve("notes.txt"));
      assertThat(cache.enabled()).isTrue();
    }
    assertThat(ReencodedSegmentCache.in(cacheDir, 0).enabled()).isFalse();
  }
}
