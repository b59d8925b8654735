package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.OffsetRange;
import io.floe.format.TimestampType;
import io.floe.rows.ConsumedRecord;
import io.floe.rows.RowCodec;
import io.floe.testing.TestCatalogs;
import io.floe.testing.TestCatalogs.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetBoundsTest {
  @TempDir Path dir;
  private JdbcCatalog catalog;
  private int fileCounter;

  @BeforeEach
  void catalog() {
    catalog = TestCatalogs.jdbc(dir, Storage.LOCAL);
    catalog.createNamespace(Namespace.of("kafka"));
  }

  @AfterEach
  void close() throws IOException {
    catalog.close();
  }

  @Test
  void aFileWithBoundsIsReadFromItsMetadataAlone() {
    Table table =
        table("bounded", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    DataFile file = write(table, rows(3, 10, 19));
    table.io().deleteFile(file.location());

    OffsetBounds bounds = OffsetBounds.of(table);
    assertThat(bounds.partitionOf(file)).isEqualTo(3);
    assertThat(bounds.boundsOf(file)).isEqualTo(new OffsetRange(10, 19));
    assertThat(bounds.offsetsOf(file)).containsExactly(Map.entry(3, new OffsetRange(10, 19)));
  }

  @Test
  void aFileWithoutBoundsIsReadFromItsOffsetColumn() {
    Table table =
        table("unbounded", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    DataFile file = withoutBounds(table.spec(), write(table, rows(3, 10, 19)));

    OffsetBounds bounds = OffsetBounds.of(table);
    assertThat(bounds.boundsOf(file)).isNull();
    assertThat(bounds.partitionOf(file)).as("from the identity partition").isEqualTo(3);
    assertThat(bounds.offsetsOf(file)).containsExactly(Map.entry(3, new OffsetRange(10, 19)));
  }

  @Test
  void withoutAnIdentityPartitionThePartitionColumnBoundsTellWhenTheyAgree() {
    Table table = table("unpartitioned", PartitionSpec.unpartitioned());
    DataFile one = write(table, rows(5, 0, 4));
    long[][] mixed = {{1, 7}, {1, 8}, {2, 3}, {2, 9}, {1, 6}};
    DataFile two = write(table, mixed);

    OffsetBounds bounds = OffsetBounds.of(table);
    assertThat(bounds.partitionOf(one)).isEqualTo(5);
    assertThat(bounds.offsetsOf(one)).containsExactly(Map.entry(5, new OffsetRange(0, 4)));
    assertThat(bounds.partitionOf(two)).isNull();
    assertThat(bounds.boundsOf(two)).isEqualTo(new OffsetRange(3, 9));
    assertThat(bounds.offsetsOf(two))
        .as("read per partition from the file")
        .containsOnly(Map.entry(1, new OffsetRange(6, 8)), Map.entry(2, new OffsetRange(3, 9)));
  }

  @Test
  void theIdentityPartitionWinsOverThePartitionColumnBounds() {
    Table table =
        table("identity", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    DataFile written = write(table, rows(7, 0, 0));
    int partitionId = table.schema().findField(TopicTableLayout.PARTITION).fieldId();
    int offsetId = table.schema().findField(TopicTableLayout.OFFSET).fieldId();
    DataFile claimsEight =
        DataFiles.builder(table.spec())
            .copy(written)
            .withMetrics(
                new Metrics(
                    1L,
                    null,
                    null,
                    null,
                    null,
                    Map.of(partitionId, intBound(8), offsetId, longBound(0)),
                    Map.of(partitionId, intBound(8), offsetId, longBound(0))))
            .build();

    assertThat(OffsetBounds.of(table).partitionOf(claimsEight)).isEqualTo(7);
  }

  @Test
  void committedEndsComeFromSummariesAndFileBounds() {
    Table table =
        table("ends", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    table
        .newFastAppend()
        .appendFile(write(table, rows(0, 0, 9)))
        .set(SegmentSummary.PARTITION, "0")
        .set(SegmentSummary.END_OFFSET, "9")
        .commit();
    Snapshot first = table.currentSnapshot();
    table.newFastAppend().appendFile(write(table, rows(1, 0, 4))).commit();
    Snapshot second = table.currentSnapshot();
    // A segment whose last records are not rows (a commit marker): its summary ends after them.
    table
        .newFastAppend()
        .appendFile(write(table, rows(0, 10, 12)))
        .set(SegmentSummary.PARTITION, "0")
        .set(SegmentSummary.END_OFFSET, "14")
        .commit();
    Snapshot third = table.currentSnapshot();

    Map<Integer, Long> fromSummaries = new HashMap<>();
    OffsetBounds.mergeSummaryEnd(third, fromSummaries);
    OffsetBounds.mergeSummaryEnd(second, fromSummaries);
    OffsetBounds.mergeSummaryEnd(first, fromSummaries);
    assertThat(fromSummaries).containsExactly(Map.entry(0, 15L));

    // Segments committed together: each entry's end counts for its partition.
    Map<Integer, Long> fromGroup = new HashMap<>(Map.of(0, 15L));
    Map<String, String> group = new HashMap<>();
    SegmentSummary.write(
        java.util.List.of(
            new SegmentSummary.Segment("t", 0, 15, 19, "a", 0, 0),
            new SegmentSummary.Segment("t", 1, 5, 8, "b", 0, 0)),
        group::put);
    org.apache.iceberg.AppendFiles append =
        table.newFastAppend().appendFile(write(table, rows(0, 15, 16)));
    group.forEach(append::set);
    append.commit();
    OffsetBounds.mergeSummaryEnd(table.currentSnapshot(), fromGroup);
    assertThat(fromGroup).containsOnly(Map.entry(0, 20L), Map.entry(1, 9L));

    Map<Integer, Long> fromFiles = new HashMap<>();
    OffsetBounds bounds =
        OffsetBounds.of(table, ((HasTableOperations) table).operations().current());
    bounds.mergeFileEnds(third.snapshotId(), fromFiles);
    assertThat(fromFiles).containsOnly(Map.entry(0, 13L), Map.entry(1, 5L));

    Map<Integer, Long> fromFilesThen = new HashMap<>();
    bounds.mergeFileEnds(first.snapshotId(), fromFilesThen);
    assertThat(fromFilesThen).containsExactly(Map.entry(0, 10L));

    Map<Integer, Long> added = new HashMap<>(Map.of(0, 10L));
    bounds.mergeAddedFileEnds(second, added);
    assertThat(added).containsOnly(Map.entry(0, 10L), Map.entry(1, 5L));
  }

  @Test
  void filesInRangeKeepsToThePartitionAndTheOffsets() {
    Table table =
        table("scan", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    DataFile low = write(table, rows(0, 0, 9));
    DataFile high = write(table, rows(0, 10, 19));
    DataFile other = write(table, rows(1, 0, 19));
    table.newFastAppend().appendFile(low).appendFile(high).appendFile(other).commit();
    Snapshot snapshot = table.currentSnapshot();

    assertThat(locations(OffsetBounds.filesInRange(table, snapshot, 0, new OffsetRange(5, 12))))
        .containsExactlyInAnyOrder(low.location(), high.location());
    assertThat(locations(OffsetBounds.filesInRange(table, snapshot, 0, new OffsetRange(12, 30))))
        .containsExactly(high.location());
    assertThat(locations(OffsetBounds.filesInRange(table, snapshot, 1, new OffsetRange(19, 19))))
        .containsExactly(other.location());
    assertThat(OffsetBounds.filesInRange(table, snapshot, 2, new OffsetRange(0, 100))).isEmpty();
  }

  @Test
  void dataFilesInRangeFindsTheLiveFilesAScanFinds() {
    Table table =
        table("manifests", TopicTableLayout.partitionSpec(TopicTableLayout.TimeTransform.NONE));
    DataFile low = write(table, rows(0, 0, 9));
    DataFile high = write(table, rows(0, 10, 19));
    DataFile other = write(table, rows(1, 0, 19));
    DataFile gone = write(table, rows(0, 20, 29));
    // Over several manifests (one per commit), one file later removed.
    table.newFastAppend().appendFile(low).appendFile(other).commit();
    table.newFastAppend().appendFile(high).commit();
    table.newFastAppend().appendFile(gone).commit();
    table.newDelete().deleteFile(gone).commit();
    DataFile last = write(table, rows(0, 30, 39));
    table.newFastAppend().appendFile(last).commit();
    Snapshot snapshot = table.currentSnapshot();

    // The same through a cache that holds the manifests read before.
    ManifestFilesCache cache = new ManifestFilesCache(100);
    for (int partition = 0; partition < 3; partition++) {
      for (OffsetRange range :
          List.of(
              new OffsetRange(5, 12),
              new OffsetRange(12, 30),
              new OffsetRange(19, 19),
              new OffsetRange(0, 100),
              new OffsetRange(21, 28))) {
        List<String> scanned =
            locations(OffsetBounds.filesInRange(table, snapshot, partition, range));
        for (ManifestFilesCache manifests : List.of(ManifestFilesCache.NONE, cache, cache)) {
          assertThat(
                  OffsetBounds.dataFilesInRange(table, snapshot, partition, range, manifests)
                      .stream()
                      .map(DataFile::location)
                      .toList())
              .as("partition %s, offsets %s", partition, range)
              .containsExactlyInAnyOrderElementsOf(scanned);
        }
      }
    }
    assertThat(
            OffsetBounds.dataFilesInRange(table, snapshot, 0, new OffsetRange(12, 30), cache)
                .stream()
                .map(DataFile::location))
        .containsExactlyInAnyOrder(high.location(), last.location());
    assertThat(OffsetBounds.dataFilesInRange(table, snapshot, 0, new OffsetRange(21, 28), cache))
        .isEmpty();

    // Later snapshots through the same cache: a file removed since is gone, one added is found.
    table.newDelete().deleteFile(high).commit();
    DataFile again = write(table, rows(0, 12, 14));
    table.newFastAppend().appendFile(again).commit();
    Snapshot later = table.currentSnapshot();
    assertThat(
            OffsetBounds.dataFilesInRange(table, later, 0, new OffsetRange(12, 30), cache).stream()
                .map(DataFile::location))
        .containsExactlyInAnyOrderElementsOf(
            locations(OffsetBounds.filesInRange(table, later, 0, new OffsetRange(12, 30))))
        .containsExactlyInAnyOrder(again.location(), last.location());
  }

  private Table table(String name, PartitionSpec spec) {
    return catalog.createTable(TableIdentifier.of("kafka", name), TopicTableLayout.SCHEMA, spec);
  }

  /** {partition, offset} of each offset from {@code first} to {@code last}. */
  private static long[][] rows(int partition, long first, long last) {
    long[][] out = new long[(int) (last - first + 1)][];
    for (long o = first; o <= last; o++) {
      out[(int) (o - first)] = new long[] {partition, o};
    }
    return out;
  }

  /** One data file of the table's spec holding the rows, as the head view writes them. */
  private DataFile write(Table table, long[][] rows) {
    RowCodec codec = new RowCodec(table.schema());
    PartitionSpec spec = table.spec();
    PartitionKey key = new PartitionKey(spec, table.schema());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    List<Record> records =
        Arrays.stream(rows)
            .map(
                r ->
                    codec.newRow(
                        ConsumedRecord.of(
                            (int) r[0],
                            r[1],
                            1_700_000_000_000L,
                            TimestampType.CREATE_TIME,
                            0,
                            null,
                            null,
                            null)))
            .toList();
    key.partition(wrapper.wrap(records.get(0)));
    StructLike partition = spec.isUnpartitioned() ? null : key.copy();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, ++fileCounter).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(table.schema())
            .build()
            .newDataWriter(
                spec.isUnpartitioned()
                    ? files.newOutputFile()
                    : files.newOutputFile(spec, partition),
                spec,
                partition);
    try (writer) {
      records.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static DataFile withoutBounds(PartitionSpec spec, DataFile file) {
    return DataFiles.builder(spec)
        .copy(file)
        .withMetrics(new Metrics(file.recordCount(), null, null, null, null))
        .build();
  }

  private static ByteBuffer intBound(int value) {
    return Conversions.toByteBuffer(Types.IntegerType.get(), value);
  }

  private static ByteBuffer longBound(long value) {
    return Conversions.toByteBuffer(Types.LongType.get(), value);
  }

  private static List<String> locations(List<FileScanTask> tasks) {
    return tasks.stream().map(t -> t.file().location()).toList();
  }
}
