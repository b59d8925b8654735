package io.floe.commit;

import io.floe.format.OffsetRange;
import io.floe.layout.FileColumns;
import io.floe.layout.ManifestFilesCache;
import io.floe.layout.OffsetBounds;
import io.floe.layout.TopicTableLayout;
import java.util.List;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;

/** The committed files of a table as of one snapshot, read through Iceberg scans and Parquet. */
final class SnapshotFiles implements CommittedFiles {
  private final Table table;
  private final Snapshot snapshot;
  private final OffsetBounds bounds;
  private final ManifestFilesCache manifests;

  SnapshotFiles(Table table, Snapshot snapshot, ManifestFilesCache manifests) {
    this.table = table;
    this.snapshot = snapshot;
    this.bounds = OffsetBounds.of(table);
    this.manifests = manifests;
  }

  @Override
  public List<DataFile> inRange(int partition, long from, long to) {
    return OffsetBounds.dataFilesInRange(
        table, snapshot, partition, new OffsetRange(from, to), manifests);
  }

  @Override
  public OffsetRange boundsOf(DataFile file) {
    return bounds.boundsOf(file);
  }

  @Override
  public Integer partitionOf(DataFile file) {
    return bounds.partitionOf(file);
  }

  @Override
  public void readRows(DataFile file, RowVisitor visitor) {
    Schema schema = table.schema();
    Schema projection =
        schema.select(
            TopicTableLayout.PARTITION, TopicTableLayout.OFFSET, TopicTableLayout.PRODUCER_ID);
    Accessor<StructLike> partition =
        projection.accessorForField(schema.findField(TopicTableLayout.PARTITION).fieldId());
    Accessor<StructLike> offset =
        projection.accessorForField(schema.findField(TopicTableLayout.OFFSET).fieldId());
    Accessor<StructLike> producerId =
        projection.accessorForField(schema.findField(TopicTableLayout.PRODUCER_ID).fieldId());
    FileColumns.read(
        table,
        file,
        projection,
        row ->
            visitor.row(
                (Integer) partition.get(row), (Long) offset.get(row), (Long) producerId.get(row)));
  }
}
