package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.fetch.IdleReaders;
import io.floe.fetch.StoredSegment;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdleReadersTest {
  private static final String TOPIC = "idle.v1";
  private static final String TOPIC_ID = "Jq3cN6tR0m3Q0nS0b6y1wA";

  @TempDir Path dir;

  @Test
  void readersKeptForLaterFetchesAreBoundedAcrossSegmentsOldestClosedFirst() throws Exception {
    int segments = IdleReaders.DEFAULT_MAX + 3;
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      List<StoredSegment> opened = new ArrayList<>();
      List<Long> secondBatch = new ArrayList<>();
      for (int s = 0; s < segments; s++) {
        long base = s * 1_000L;
        SegmentGenerator gen = SegmentGenerator.seeded(s).startOffset(base);
        for (int i = 0; i < 40; i++) {
          gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 4, 300);
        }
        Path log = gen.writeTo(dir.resolve(base + ".log"));
        SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, base, "idle-" + s);
        f.segments.copy(key, SegmentFiles.of(log, base));
        StoredSegment stored = f.segments.open(key);
        // A fetch that reads the first batch and stops, as a broker's fetch of a few bytes does:
        // its reader is kept for a fetch that continues from the next batch.
        long next = stored.directory().encodedPosition(1);
        try (InputStream in = stored.fetch(0)) {
          assertThat(Batches.readComplete(in.readNBytes((int) next))).hasSize(1);
        }
        opened.add(stored);
        secondBatch.add(next);
      }

      assertThat(f.segments.fetching().idleReaders().size()).isEqualTo(IdleReaders.DEFAULT_MAX);
      // Newest first: a fetch that finds no reader parks a new one, closing the oldest parked.
      for (int s = segments - 1; s >= 0; s--) {
        StoredSegment stored = opened.get(s);
        try (InputStream in = stored.fetch(secondBatch.get(s))) {
          assertThat(Batches.readComplete(in.readNBytes(64 * 1024))).isNotEmpty();
        }
        // The three parked longest ago were closed; the others' fetches continue their readers.
        assertThat(stored.reusedStreams()).as("segment %s", s).isEqualTo(s < 3 ? 0 : 1);
      }
      assertThat(f.segments.fetching().idleReaders().size()).isEqualTo(IdleReaders.DEFAULT_MAX);
      opened.forEach(StoredSegment::close);
      assertThat(f.segments.fetching().idleReaders().size()).isZero();
    }
  }
}
