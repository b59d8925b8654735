package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableOptions;
import io.floe.maintenance.SnapshotExpiry;
import io.floe.rows.RowCodec;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy plans against the snapshot its cached table instance holds; another broker's commit and a
 * snapshot expiry (Floe's own on another broker, or an engine's) remove that snapshot before the
 * copy commits. The copy plans again against the current table and commits once.
 */
class CopyRacingExpiryTest {
  private static final String TOPIC = "raced";
  private static final String TOPIC_ID = "id";
  private static final long FAR_FUTURE = Long.MAX_VALUE / 2;

  @TempDir Path dir;

  @Test
  void aCopyWhoseBaseSnapshotAndItsManifestListWereExpiredPlansAgainAndCommitsOnce()
      throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      SegmentGenerator first = copyFirstSegment(f);
      Table elsewhere = commitFromAnotherBroker(f);
      assertThat(new SnapshotExpiry().expire(elsewhere, FAR_FUTURE).expiredSnapshots())
          .isEqualTo(1);

      TieredSegments.CopyResult result = copySecondSegment(f, first);

      assertThat(result.commitAttempts()).isEqualTo(2);
      assertCommittedOnceWithoutDuplicates(f, 3);
    }
  }

  @Test
  void aCopyWhoseBaseSnapshotAnEngineExpiredWithoutDeletingFilesPlansAgainAndCommitsOnce()
      throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      SegmentGenerator first = copyFirstSegment(f);
      Table elsewhere = commitFromAnotherBroker(f);
      elsewhere
          .expireSnapshots()
          .expireOlderThan(FAR_FUTURE)
          .retainLast(1)
          .cleanExpiredFiles(false)
          .commit();

      TieredSegments.CopyResult result = copySecondSegment(f, first);

      assertThat(result.commitAttempts()).isEqualTo(2);
      assertCommittedOnceWithoutDuplicates(f, 3);
    }
  }

  private SegmentGenerator copyFirstSegment(TableFixture f) throws Exception {
    SegmentGenerator gen = plain(SegmentGenerator.seeded(61));
    f.segments.copy(
        new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "first"),
        SegmentFiles.of(gen.writeTo(dir.resolve("first.log")), 0));
    return gen;
  }

  /**
   * Another broker (its own catalog client and table instances) copies a segment of partition 1,
   * and returns its table with a minimum of one snapshot to keep, for expiring.
   */
  private Table commitFromAnotherBroker(TableFixture f) throws Exception {
    TieredSegments other =
        new TieredSegments(
            new TopicTables(f.catalog, TopicTableOptions.builder().build()),
            new SegmentCommitter());
    SegmentGenerator gen = plain(SegmentGenerator.seeded(62));
    other.copy(
        new SegmentKey(TOPIC, TOPIC_ID, 1, 0, "other"),
        SegmentFiles.of(gen.writeTo(dir.resolve("other.log")), 0));
    Table table = other.tables().find(TOPIC, TOPIC_ID);
    table.updateProperties().set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1").commit();
    return table;
  }

  /** Copies through the table instance the first copy cached, whose snapshot is gone. */
  private TieredSegments.CopyResult copySecondSegment(TableFixture f, SegmentGenerator first)
      throws Exception {
    long base = first.nextOffset();
    SegmentGenerator gen = plain(SegmentGenerator.seeded(63).startOffset(base));
    return f.segments.copy(
        new SegmentKey(TOPIC, TOPIC_ID, 0, base, "second"),
        SegmentFiles.of(gen.writeTo(dir.resolve("second.log")), base));
  }

  private static void assertCommittedOnceWithoutDuplicates(TableFixture f, int segments) {
    Table table = f.table(TOPIC, TOPIC_ID);
    int ownSnapshots = 0;
    for (Snapshot s : table.snapshots()) {
      if ("second".equals(s.summary().get(SegmentSummary.SEGMENT_ID))) {
        ownSnapshots++;
      }
    }
    assertThat(ownSnapshots).as("snapshots of the raced copy").isEqualTo(1);
    List<Record> rows = TableFixture.rows(table);
    RowCodec codec = new RowCodec(table.schema());
    Set<String> offsets = new HashSet<>();
    for (Record row : rows) {
      offsets.add(
          ((Record) row.getField("kafka")).getField("partition") + "@" + codec.offsetOf(row));
    }
    assertThat(offsets).as("partition@offset of every row").hasSize(rows.size());
    assertThat(rows).hasSize(segments * 100);
  }

  private static SegmentGenerator plain(SegmentGenerator gen) {
    for (int b = 0; b < 20; b++) {
      gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 40);
    }
    return gen;
  }
}
