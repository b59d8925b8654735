package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.RecordBatch;
import io.floe.format.TimestampType;
import io.floe.rows.RowCodec;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments;
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
  void newTablesExpireSnapshotsAndOldMetadataUnlessTheUserSetsOtherwise() throws Exception {
    try (TableFixture f =
        new TableFixture(
            dir,
            Storage.LOCAL,
            TopicTableOptions.builder()
                .tableProperty("history.expire.min-snapshots-to-keep", "7")
                .build())) {
      Table t = f.tables.resolve("aging", "id");
      assertThat(t.properties())
          .containsEntry("history.expire.max-snapshot-age-ms", "3600000")
          .containsEntry("history.expire.min-snapshots-to-keep", "7")
          .containsEntry("write.metadata.delete-after-commit.enabled", "true")
          .containsEntry("write.metadata.previous-versions-max", "50");
    }
  }

  @Test
  void schemaSpecAndSortOrderFollowTheLayout() throws Exception {
    try (TableFixture f =
        new TableFixture(
            dir,
            Storage.LOCAL,
            TopicTableOptions.builder()
                .timeTransform(TopicTableLayout.TimeTransform.HOUR)
                .build())) {
      Table t = f.tables.resolve("clicks", "id");
      assertThat(t.spec().fields())
          .extracting(pf -> pf.transform().toString())
          .containsExactly("identity", "hour");
      assertThat(t.sortOrder().fields()).hasSize(1);
      assertThat(t.schema().findField("kafka.timestamp").type().toString())
          .isEqualTo("timestamptz");
      assertThat(
              t.schema()
                  .findField("headers")
                  .type()
                  .asListType()
                  .elementType()
                  .asStructType()
                  .fields())
          .extracting(field -> field.name() + ":" + field.type() + ":" + field.isOptional())
          .containsExactly("key:string:false", "value:binary:true");
      assertThat(t.properties()).containsEntry("write.parquet.compression-codec", "zstd");
      assertThat(((org.apache.iceberg.HasTableOperations) t).operations().current().formatVersion())
          .isEqualTo(2);
    }
  }

  @Test
  void segmentCrossingDaysAndFileSizeWithBigRecordsIsSplitIntoSeveralFilesAndStillRoundTrips()
      throws Exception {
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
            dir,
            Storage.LOCAL,
            TopicTableOptions.builder()
                .targetFileSizeBytes(1024 * 1024)
                .rowGroupSizeBytes(64 * 1024)
                .build())) {
      SegmentKey key = new SegmentKey("big", "id", 0, 0, "s");
      f.segments.copy(key, SegmentFiles.of(log, 0));
      Table table = f.table("big", "id");
      List<String> partitions = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> partitions.add(t.file().partition().toString()));
      }
      assertThat(partitions.stream().distinct().count())
          .as("one partition per day")
          .isGreaterThanOrEqualTo(3);
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
  void concurrentCopiesIntoOneTableAllCommitOnceEachInTheSnapshotTheirCopyReturned()
      throws Exception {
    int copiers = 16;
    int segmentsPerCopier = 3;
    int rowsPerSegment = 60;
    List<List<Path>> logs = new ArrayList<>();
    for (int p = 0; p < copiers; p++) {
      List<Path> mine = new ArrayList<>();
      for (int s = 0; s < segmentsPerCopier; s++) {
        SegmentGenerator gen =
            SegmentGenerator.seeded(100 + p * 10 + s).startOffset(s * rowsPerSegment);
        for (int i = 0; i < rowsPerSegment / 10; i++) {
          gen.batch(Compression.LZ4, TimestampType.CREATE_TIME, 10, 100);
        }
        mine.add(gen.writeTo(dir.resolve(p + "-" + s + ".log")));
      }
      logs.add(mine);
    }
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      f.tables.resolve("busy", "id");
      ExecutorService pool = Executors.newFixedThreadPool(copiers);
      java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
      List<Future<List<TieredSegments.CopyResult>>> results = new ArrayList<>();
      for (int p = 0; p < copiers; p++) {
        int partition = p;
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  List<TieredSegments.CopyResult> out = new ArrayList<>();
                  for (int s = 0; s < segmentsPerCopier; s++) {
                    out.add(
                        f.segments.copy(
                            new SegmentKey(
                                "busy",
                                "id",
                                partition,
                                s * rowsPerSegment,
                                "s" + partition + "-" + s),
                            SegmentFiles.of(logs.get(partition).get(s), s * rowsPerSegment)));
                  }
                  return out;
                }));
      }
      start.countDown();
      java.util.Map<String, Long> snapshotOfSegment = new java.util.HashMap<>();
      for (int p = 0; p < copiers; p++) {
        List<TieredSegments.CopyResult> copied =
            results.get(p).get(5, java.util.concurrent.TimeUnit.MINUTES);
        for (int s = 0; s < segmentsPerCopier; s++) {
          snapshotOfSegment.put("s" + p + "-" + s, copied.get(s).snapshotId());
        }
      }
      pool.shutdown();
      Table table = f.table("busy", "id");
      List<org.apache.iceberg.Snapshot> snapshots = new ArrayList<>();
      table.snapshots().forEach(snapshots::add);
      List<String> committed = new ArrayList<>();
      for (org.apache.iceberg.Snapshot snap : snapshots) {
        List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(snap.summary());
        assertThat(segments).as("snapshot %s commits segments", snap.snapshotId()).isNotEmpty();
        for (SegmentSummary.Segment g : segments) {
          committed.add(g.segmentId());
          String[] ps = g.segmentId().substring(1).split("-");
          assertThat(snapshotOfSegment.get(g.segmentId()))
              .as("segment %s is in the snapshot its copy returned", g.segmentId())
              .isEqualTo(snap.snapshotId());
          assertThat(g.partition()).isEqualTo(Integer.parseInt(ps[0]));
          assertThat(g.startOffset()).isEqualTo(Long.parseLong(ps[1]) * rowsPerSegment);
          assertThat(g.endOffset()).isEqualTo(g.startOffset() + rowsPerSegment - 1);
          assertThat(g.topicId()).isEqualTo("id");
        }
        assertThat(snap.summary())
            .containsEntry("added-records", Integer.toString(rowsPerSegment * segments.size()));
      }
      assertThat(committed)
          .as("each segment committed once")
          .containsExactlyInAnyOrderElementsOf(snapshotOfSegment.keySet());
      List<org.apache.iceberg.data.Record> rows = TableFixture.rows(table);
      assertThat(rows).hasSize(copiers * segmentsPerCopier * rowsPerSegment);
      for (int p = 0; p < copiers; p++) {
        int partition = p;
        assertThat(
                rows.stream()
                    .filter(
                        r ->
                            (Integer) ((org.apache.iceberg.data.Record) r.get(0)).get(0)
                                == partition)
                    .map(new RowCodec(table.schema())::offsetOf)
                    .toList())
            .as("partition %s holds each offset once", p)
            .containsExactlyInAnyOrderElementsOf(
                java.util.stream.LongStream.range(0, (long) segmentsPerCopier * rowsPerSegment)
                    .boxed()
                    .toList());
      }
      // Grouped commits: fewer snapshots (and metadata versions) than segments (16 copiers arriving
      // together always overlap), one metadata version per snapshot.
      int metadataVersions =
          ((org.apache.iceberg.HasTableOperations) table)
                  .operations()
                  .current()
                  .previousFiles()
                  .size()
              + 1;
      assertThat(snapshots.size()).isLessThan(copiers * segmentsPerCopier);
      assertThat(metadataVersions).isEqualTo(snapshots.size() + 1);
    }
  }
}
