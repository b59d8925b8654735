package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.Compaction;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotExpiryTest {
  private static final String TOPIC = "aging";
  private static final String TOPIC_ID = "id";
  private static final long HOUR = 3_600_000;
  private static final long FAR_FUTURE = Long.MAX_VALUE / 2;

  @TempDir Path dir;

  private final SnapshotExpiry expiry = new SnapshotExpiry();

  private final List<SegmentKey> keys = new ArrayList<>();
  private final List<Path> logs = new ArrayList<>();
  private long nextOffset;

  @Test
  void expiresSnapshotsPastTheAgeLimitButKeepsYoungOnesAndTheMinimumCount() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      for (int i = 0; i < 6; i++) {
        copySegment(f, i);
      }
      Table table = f.table(TOPIC, TOPIC_ID);
      table.updateProperties().set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "2").commit();
      int rows = TableFixture.rows(table).size();
      List<Snapshot> history = new ArrayList<>();
      SnapshotUtil.currentAncestors(table).forEach(history::add);
      Collections.reverse(history); // oldest first
      assertThat(history).hasSize(6);

      assertThat(expiry.expire(table).expiredSnapshots())
          .as("every snapshot is younger than an hour")
          .isZero();

      long cutoff = history.get(2).timestampMillis() + 1;
      assertThat(history.get(3).timestampMillis()).isGreaterThanOrEqualTo(cutoff);
      SnapshotExpiry.Outcome outcome = expiry.expire(table, cutoff + HOUR);
      assertThat(outcome.expiredSnapshots()).isEqualTo(3);
      assertThat(ids(table.snapshots()))
          .containsExactlyInAnyOrderElementsOf(ids(history.subList(3, 6)));
      for (Snapshot gone : history.subList(0, 3)) {
        assertThat(table.io().newInputFile(gone.manifestListLocation()).exists())
            .as("manifest list of expired snapshot %s", gone.snapshotId())
            .isFalse();
      }
      assertThat(outcome.deletedFiles()).isGreaterThanOrEqualTo(3);
      assertThat(outcome.keptFiles()).isZero();

      assertThat(expiry.expire(table, FAR_FUTURE).expiredSnapshots()).isEqualTo(1);
      assertThat(ids(table.snapshots()))
          .as("the minimum count stays however old")
          .containsExactlyInAnyOrderElementsOf(ids(history.subList(4, 6)));
      assertThat(TableFixture.rows(table)).hasSize(rows);
      for (int i = 0; i < keys.size(); i++) {
        f.assertServesExactly(keys.get(i), logs.get(i));
      }
    }
  }

  @Test
  void deletesTheDataFilesOfSegmentsKafkaDeletedOnceNoSnapshotReadsThem() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      for (int i = 0; i < 3; i++) {
        copySegment(f, i);
      }
      List<String> deletedSegmentFiles = f.segments.open(keys.get(0)).dataFiles();
      f.segments.delete(keys.get(0), true, DeleteReason.EXPIRED);
      copySegment(f, 3); // Iceberg deletes a file once the snapshot that removed it expires
      Table table = f.table(TOPIC, TOPIC_ID);
      assertThat(deletedSegmentFiles)
          .as("older snapshots still hold them")
          .allMatch(location -> table.io().newInputFile(location).exists());
      table.updateProperties().set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1").commit();

      SnapshotExpiry.Outcome outcome = expiry.expire(table, FAR_FUTURE);

      assertThat(outcome.expiredSnapshots()).as("three copies and the removal").isEqualTo(4);
      assertThat(deletedSegmentFiles)
          .noneMatch(location -> table.io().newInputFile(location).exists());
      assertThat(outcome.keptFiles()).isZero();
      f.assertServesExactly(keys.get(1), logs.get(1));
      f.assertServesExactly(keys.get(2), logs.get(2));
    }
  }

  @Test
  void keepsTheFilesALiveSegmentReadsAfterACompactionRewroteThem() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.S3)) {
      copySegment(f, 0);
      copySegment(f, 1);
      Table table = f.table(TOPIC, TOPIC_ID);
      List<DataFile> rewritten = Compaction.intoOneFile(table);
      copySegment(f, 2);
      table.updateProperties().set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1").commit();

      SnapshotExpiry.Outcome outcome = expiry.expire(table, FAR_FUTURE);

      assertThat(outcome.expiredSnapshots()).as("two copies and the compaction").isEqualTo(3);
      assertThat(outcome.keptFiles()).isEqualTo(rewritten.size());
      assertThat(outcome.deletedFiles()).as("the expired snapshots' manifests").isPositive();
      assertThat(rewritten).allMatch(file -> table.io().newInputFile(file.location()).exists());
      f.assertServesExactly(keys.get(0), logs.get(0));
      f.assertServesExactly(keys.get(1), logs.get(1));
      f.assertServesExactly(keys.get(2), logs.get(2));

      // Kafka deletes the first segment: its rewritten files go with it, nothing is left behind.
      List<String> firstFiles = f.segments.open(keys.get(0)).dataFiles();
      f.segments.delete(keys.get(0), false, DeleteReason.EXPIRED);
      assertThat(firstFiles).noneMatch(location -> table.io().newInputFile(location).exists());
      f.assertServesExactly(keys.get(1), logs.get(1));
    }
  }

  private void copySegment(TableFixture f, int i) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(40 + i).startOffset(nextOffset);
    for (int b = 0; b < 20; b++) {
      gen.batch(
          Compression.values()[b % Compression.values().length], TimestampType.CREATE_TIME, 5, 60);
    }
    Path log = gen.writeTo(dir.resolve(i + ".log"));
    SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, nextOffset, "s" + i);
    f.segments.copy(key, SegmentFiles.of(log, nextOffset));
    keys.add(key);
    logs.add(log);
    nextOffset = gen.nextOffset();
  }

  private static List<Long> ids(Iterable<Snapshot> snapshots) {
    List<Long> ids = new ArrayList<>();
    snapshots.forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }
}
