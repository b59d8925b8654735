package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.nio.file.Path;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies share one table instance per topic instead of loading the table each time. Its metadata
 * may be behind another writer's commits; that must never cost rows or duplicate them.
 */
class CopyTableCacheTest {
  private static final String TOPIC = "events";
  private static final String TOPIC_ID = "CCCCCCCCCCCCCCCCCCCCCC";

  @TempDir Path dir;

  @Test
  void copiesShareOneInstanceUntilItIsForgotten() throws Exception {
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      Table first = fx.tables.forCopy(TOPIC, TOPIC_ID);
      assertThat(fx.tables.forCopy(TOPIC, TOPIC_ID)).isSameAs(first);
      fx.tables.forget(TOPIC, TOPIC_ID);
      assertThat(fx.tables.forCopy(TOPIC, TOPIC_ID)).isNotSameAs(first);
    }
  }

  @Test
  void aRetriedCopyPlannedOnStaleMetadataStillReplacesTheOtherWritersCopy() throws Exception {
    Path log =
        SegmentGenerator.seeded(8)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 30, 100)
            .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 30, 100)
            .writeTo(dir.resolve("0.log"));
    try (TableFixture fx = new TableFixture(dir, Storage.LOCAL)) {
      fx.segments.copy(
          new SegmentKey(TOPIC, TOPIC_ID, 1, 0, "other-partition"), SegmentFiles.of(log, 0));
      Table stale = fx.tables.forCopy(TOPIC, TOPIC_ID);
      long staleSnapshot = stale.currentSnapshot().snapshotId();

      // another broker copies partition 0 through its own catalog view: the shared instance does
      // not see it
      TieredSegments otherBroker =
          new TieredSegments(
              new TopicTables(fx.catalog, TopicTableOptions.builder().build()),
              new SegmentCommitter());
      otherBroker.copy(new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "first-try"), SegmentFiles.of(log, 0));
      assertThat(stale.currentSnapshot().snapshotId()).isEqualTo(staleSnapshot);

      TieredSegments.CopyResult retried =
          fx.segments.copy(
              new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "retried"), SegmentFiles.of(log, 0));
      assertThat(retried.overlappedDataFiles()).isPositive();
      assertThat(retried.commitAttempts()).isGreaterThan(1); // validation caught the stale plan
      assertThat(TableFixture.rows(fx.table(TOPIC, TOPIC_ID))).hasSize(2 * 60);
      fx.assertServesExactly(new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "retried"), log);
    }
  }
}
