package io.floe.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** What a user's compaction (rewrite_data_files) does to a topic table of one partition. */
public final class Compaction {
  private Compaction() {}

  /**
   * Rewrites every data file of the table into one, applying deletes; returns the rewritten files.
   */
  public static List<DataFile> intoOneFile(Table table) throws IOException {
    table.refresh();
    List<DataFile> old = new ArrayList<>();
    Set<DeleteFile> deletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(
          t -> {
            old.add(t.file());
            deletes.addAll(t.deletes());
          });
    }
    List<Record> rows = TableFixture.rows(table); // deletes applied, sorted by offset
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, 99).format(FileFormat.PARQUET).build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(rows.get(0)));
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(key), table.spec(), key);
    try (writer) {
      rows.forEach(writer::write);
    }
    RewriteFiles rewrite = table.newRewrite();
    old.forEach(rewrite::deleteFile);
    deletes.forEach(rewrite::deleteFile);
    rewrite.validateFromSnapshot(table.currentSnapshot().snapshotId());
    rewrite.addFile(writer.toDataFile());
    rewrite.commit();
    return old;
  }
}
