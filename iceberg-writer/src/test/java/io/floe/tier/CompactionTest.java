package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.Compaction;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Someone compacts the table (rewrites its data files, expires the old ones): Kafka fetches keep
 * working.
 */
class CompactionTest {
  @TempDir Path dir;

  @Test
  void fetchReadsTheRewrittenFilesOnceTheCopiedOnesAreGone() throws Exception {
    SegmentGenerator one = SegmentGenerator.seeded(31);
    for (int i = 0; i < 200; i++) {
      one.batch(
          Compression.values()[i % 5],
          i % 7 == 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
          1 + i % 9,
          120);
    }
    SegmentGenerator two = SegmentGenerator.seeded(32).startOffset(one.nextOffset());
    for (int i = 0; i < 100; i++) {
      two.batch(Compression.ZSTD, TimestampType.CREATE_TIME, 3, 80);
    }
    Path logOne = one.writeTo(dir.resolve("one.log"));
    Path logTwo = two.writeTo(dir.resolve("two.log"));
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey k1 = new SegmentKey("compacted", "id", 0, 0, "one");
      SegmentKey k2 = new SegmentKey("compacted", "id", 0, one.nextOffset(), "two");
      f.segments.copy(k1, SegmentFiles.of(logOne, 0));
      f.segments.copy(k2, SegmentFiles.of(logTwo, one.nextOffset()));

      Table table = f.table("compacted", "id");
      for (DataFile file : Compaction.intoOneFile(table)) {
        table.io().deleteFile(file.location()); // what expire_snapshots does to the rewritten files
      }

      f.assertServesExactly(k1, logOne);
      f.assertServesExactly(k2, logTwo);
    }
  }

  @Test
  void compactionThatDroppedAbortedRecordsFailsTheFetchLoudly() throws Exception {
    SegmentGenerator gen =
        SegmentGenerator.seeded(33)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 50)
            .transactionalBatch(9, (short) 0, Compression.NONE, 4)
            .abortMarker(9, (short) 0)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 50);
    Path log = gen.writeTo(dir.resolve("0.log"));
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      SegmentKey key = new SegmentKey("aborts", "id", 0, 0, "s");
      f.segments.copy(key, SegmentFiles.of(log, 0));
      Table table = f.table("aborts", "id");
      for (DataFile file : Compaction.intoOneFile(table)) {
        table.io().deleteFile(file.location());
      }
      assertThatThrownBy(
              () -> {
                try (InputStream in = f.segments.open(key).fetch(0)) {
                  in.readAllBytes();
                }
              })
          .isInstanceOf(IOException.class)
          .hasMessageContaining("incomplete");
    }
  }
}
