package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.headview.HeadWriter.HeadFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A head's snapshot holds every file carried over and written, and is written by the load's own
 * thread: handed to Iceberg's worker pool, each step waited for its tasks in 10 ms polls.
 */
class HeadSnapshotTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "offset", Types.LongType.get()));
  private static final PartitionSpec SPEC = PartitionSpec.unpartitioned();

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theSnapshotIsWrittenInTheLoadsThreadWithEveryFile(boolean withDeletes) {
    Set<Thread> writers = ConcurrentHashMap.newKeySet();
    InMemoryFileIO io =
        new InMemoryFileIO() {
          @Override
          public OutputFile newOutputFile(String path) {
            writers.add(Thread.currentThread());
            return super.newOutputFile(path);
          }
        };
    TableMetadata base =
        TableMetadata.newTableMetadata(
            SCHEMA, SPEC, SortOrder.unsorted(), "mem://warehouse/t", Map.of("format-version", "2"));
    ViewOperations ops =
        new ViewOperations(ViewOperations.viewMetadata(base), io, "mem://warehouse/t/floe-head/x");
    BaseTable view = new BaseTable(ops, "t", report -> {});
    List<HeadFile> carried = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      DataFile file = dataFile("carried-" + i);
      carried.add(
          new HeadFile(
              file, Map.of(), withDeletes && i % 4 == 0 ? List.of(deletesOf(file)) : List.of()));
    }
    List<HeadFile> written = List.of(new HeadFile(dataFile("written"), Map.of()));

    HeadSnapshot.commit(view, carried, written, "0:0-40");

    assertThat(writers).containsExactly(Thread.currentThread());
    Snapshot snapshot = ops.current().currentSnapshot();
    assertThat(snapshot.summary())
        .containsEntry(SnapshotSummary.ADDED_FILES_PROP, "41")
        .containsEntry(HeadView.SUMMARY_HEAD, "true")
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:0-40");
    assertThat(snapshot.addedDeleteFiles(io)).hasSize(withDeletes ? 10 : 0);
  }

  private static DataFile dataFile(String name) {
    return DataFiles.builder(SPEC)
        .withPath("mem://warehouse/t/floe-head/x/" + name + ".parquet")
        .withFileSizeInBytes(1024)
        .withRecordCount(10)
        .build();
  }

  private static DeleteFile deletesOf(DataFile file) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath(file.location().replace(".parquet", "-deletes.parquet"))
        .withFileSizeInBytes(256)
        .withRecordCount(3)
        .withReferencedDataFile(file.location())
        .build();
  }
}
