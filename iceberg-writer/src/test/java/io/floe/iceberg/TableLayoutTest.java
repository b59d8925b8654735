package io.floe.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.TimestampType;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TestCatalogs.Storage;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableLayoutTest {
  @TempDir Path dir;

  @Test
  void topicsThatMapToTheSameNameOrARecreatedTopicNeverShareATable() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table dotted = f.tables.resolve("a.b", "id-one");
      Table underscored = f.tables.resolve("a_b", "id-two");
      Table recreated = f.tables.resolve("a.b", "id-three");
      assertThat(dotted.name()).endsWith("kafka.a_b");
      assertThat(underscored.name()).isNotEqualTo(dotted.name());
      assertThat(recreated.name()).isNotIn(dotted.name(), underscored.name());
      assertThat(f.tables.resolve("a.b", "id-one").name()).isEqualTo(dotted.name());
      assertThat(f.tables.find("a_b", "id-two").properties()).containsEntry("kafka.topic", "a_b");
      assertThat(f.tables.resolve("2024-events", "x").name()).endsWith("kafka.t_2024_events");
    }
  }

  @Test
  void schemaSpecAndSortOrderFollowTheLayout() throws Exception {
    try (TableFixture f =
        new TableFixture(
            dir, Storage.LOCAL,
            TopicTableOptions.builder().timeTransform(TopicTableLayout.TimeTransform.HOUR).build())) {
      Table t = f.tables.resolve("clicks", "id");
      assertThat(t.spec().fields()).extracting(pf -> pf.transform().toString()).containsExactly("identity", "hour");
      assertThat(t.sortOrder().fields()).hasSize(1);
      assertThat(t.schema().findField("kafka.timestamp").type().toString()).isEqualTo("timestamptz");
      assertThat(t.schema().findField("headers").type().asListType().elementType().asStructType().fields())
          .extracting(field -> field.name() + ":" + field.type() + ":" + field.isOptional())
          .containsExactly("key:string:false", "value:binary:true");
      assertThat(t.properties()).containsEntry("write.parquet.compression-codec", "zstd");
      assertThat(((org.apache.iceberg.HasTableOperations) t).operations().current().formatVersion()).isEqualTo(2);
    }
  }

  @Test
  void segmentCrossingDaysAndFileSizeWithBigRecordsIsSplitIntoSeveralFilesAndStillRoundTrips() throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(9);
    for (int day = 0; day < 3; day++) {
      for (int i = 0; i < 40; i++) {
        gen.batch(Compression.values()[i % 5], TimestampType.CREATE_TIME, 20, 2000);
      }
      gen.bigRecord(1_500_000 + day);
      gen.advanceClock(24L * 3600 * 1000);
    }
    Path log = gen.writeTo(dir.resolve("0.log"));
    try (TableFixture f =
        new TableFixture(
            dir, Storage.LOCAL,
            TopicTableOptions.builder().targetFileSizeBytes(1024 * 1024).rowGroupSizeBytes(64 * 1024).build())) {
      SegmentKey key = new SegmentKey("big", "id", 0, 0, "s");
      f.segments.copy(key, SegmentFiles.of(log, 0));
      Table table = f.table("big", "id");
      List<String> partitions = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> partitions.add(t.file().partition().toString()));
      }
      assertThat(partitions.stream().distinct().count()).as("one partition per day").isGreaterThanOrEqualTo(3);
      assertThat(f.segments.open(key).dataFiles()).hasSameSizeAs(partitions);

      List<RecordBatch> original = Batches.read(log);
      List<RecordBatch> served;
      try (InputStream in = f.segments.open(key).fetch(0)) {
        served = Batches.read(in);
      }
      Batches.assertSameBatches(original, served);
      // A filter on the Kafka partition prunes by the identity partition.
      try (CloseableIterable<FileScanTask> none =
          table.newScan().filter(Expressions.equal(TopicTableLayout.PARTITION, 1)).planFiles()) {
        assertThat(none).isEmpty();
      }
    }
  }

  @Test
  void firstUseOfANamespaceFromManyThreadsSucceeds() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      ExecutorService pool = Executors.newFixedThreadPool(6);
      List<Future<Table>> tables = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        String topic = "t" + i;
        tables.add(pool.submit(() -> f.tables.resolve(topic, "id-" + topic)));
      }
      for (Future<Table> t : tables) {
        assertThat(t.get().properties()).containsKey("kafka.topic");
      }
      pool.shutdown();
    }
  }

  @Test
  void concurrentCopiesIntoOneTableAllCommit() throws Exception {
    int copiers = 8;
    List<Path> logs = new ArrayList<>();
    int expectedRows = 0;
    for (int p = 0; p < copiers; p++) {
      SegmentGenerator gen = SegmentGenerator.seeded(100 + p);
      for (int i = 0; i < 20; i++) {
        gen.batch(Compression.LZ4, TimestampType.CREATE_TIME, 10, 100);
      }
      expectedRows += 200;
      logs.add(gen.writeTo(dir.resolve(p + ".log")));
    }
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      ExecutorService pool = Executors.newFixedThreadPool(copiers);
      List<Future<TieredSegments.CopyResult>> results = new ArrayList<>();
      for (int p = 0; p < copiers; p++) {
        int partition = p;
        results.add(pool.submit(
            () -> f.segments.copy(new SegmentKey("busy", "id", partition, 0, "s" + partition),
                SegmentFiles.of(logs.get(partition), 0))));
      }
      for (Future<TieredSegments.CopyResult> r : results) {
        assertThat(r.get().snapshotId()).isPositive();
      }
      pool.shutdown();
      assertThat(TableFixture.rows(f.table("busy", "id"))).hasSize(expectedRows);
      assertThat(f.table("busy", "id").snapshots()).hasSize(copiers);
    }
  }
}
