package io.floe.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.TimestampType;
import io.floe.testing.Batches;
import io.floe.testing.PartitionChecks;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every row a copy writes lies in the partition of the data file it is in. */
class RowPartitionsTest {
  private static final long HOUR = 3_600_000L;

  @TempDir Path dir;

  @Test
  void rowsGoingBackAndForthAcrossHoursLieInTheirFilesPartitions() throws Exception {
    try (TableFixture f = TableFixture.hourly(dir)) {
      Path log = bouncingSegment(11).writeTo(dir.resolve("0.log"));
      Table table = copied(f, log, "clicks");
      assertThat(checkedFiles(table)).as("a file per hour, the bounces included").isEqualTo(4);
    }
  }

  @Test
  void aSpecTheUserEvolvedWithAKeyBucketStillPlacesEveryRow() throws Exception {
    try (TableFixture f = TableFixture.hourly(dir)) {
      f.tables
          .resolve("orders", "id")
          .updateSpec()
          .addField(org.apache.iceberg.expressions.Expressions.bucket("key", 4))
          .commit();
      Path log = bouncingSegment(12).writeTo(dir.resolve("0.log"));
      Table table = copied(f, log, "orders");
      assertThat(checkedFiles(table)).as("hours times key buckets").isGreaterThan(4);
    }
  }

  /** Batches whose timestamps go to the next hour and back, some with log-append time. */
  private static SegmentGenerator bouncingSegment(long seed) {
    SegmentGenerator gen = SegmentGenerator.seeded(seed);
    for (int i = 0; i < 24; i++) {
      gen.advanceClock(i % 2 == 0 ? HOUR : -HOUR + 1);
      TimestampType type = i % 3 == 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
      gen.batch(Compression.values()[i % 5], type, 15, 40);
    }
    // the last four batches move a fourth hour into the segment
    gen.advanceClock(3 * HOUR);
    for (int i = 0; i < 4; i++) {
      gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 10, 20);
    }
    return gen;
  }

  private static Table copied(TableFixture f, Path log, String topic) throws Exception {
    SegmentKey key = new SegmentKey(topic, "id", 0, 0, "s");
    f.segments.copy(key, SegmentFiles.of(log, 0));
    List<RecordBatch> served;
    try (InputStream in = f.segments.open(key).fetch(0)) {
      served = Batches.read(in);
    }
    Batches.assertSameBatches(Batches.read(log), served);
    return f.table(topic, "id");
  }

  /** Checks each data file's rows against its partition; returns the number of files. */
  private static int checkedFiles(Table table) throws Exception {
    Set<String> partitions = new HashSet<>();
    int files = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        PartitionChecks.rowsInTheirFilesPartition(table, file);
        assertThat(partitions.add(file.partition().toString()))
            .as("one file per partition")
            .isTrue();
        files++;
      }
    }
    return files;
  }
}
