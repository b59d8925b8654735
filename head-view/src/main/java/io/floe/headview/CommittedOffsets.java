package io.floe.headview;

import io.floe.commit.SegmentCommitter;
import io.floe.layout.TopicTableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Where a table's committed data ends, per Kafka partition, from its data files: the offset after
 * the highest {@code kafka.offset} a file holds, taken from the file's column bounds (or its offset
 * column when it has none).
 */
final class CommittedOffsets {
  private CommittedOffsets() {}

  /**
   * Adds, per partition, the offset after the highest one in the snapshot's data files: from the
   * files' column bounds, or by reading the offset column of a file that has none.
   */
  static void fileBounds(
      Table table, TableMetadata base, long snapshotId, Map<Integer, Long> next) {
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        fileBound(table, base, task.file(), next);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void fileBound(
      Table table, TableMetadata base, DataFile file, Map<Integer, Long> next) {
    Schema schema = base.schema();
    int partitionId = schema.findField(TopicTableLayout.PARTITION).fieldId();
    int offsetId = schema.findField(TopicTableLayout.OFFSET).fieldId();
    Integer partition = identityPartition(base.spec(file.specId()), file, partitionId);
    if (partition == null) {
      partition = bound(file.lowerBounds(), partitionId, Types.IntegerType.get());
      Integer upper = bound(file.upperBounds(), partitionId, Types.IntegerType.get());
      if (!Objects.equals(partition, upper)) {
        partition = null;
      }
    }
    Long maxOffset = bound(file.upperBounds(), offsetId, Types.LongType.get());
    if (partition != null && maxOffset != null) {
      next.merge(partition, maxOffset + 1, Math::max);
    } else {
      readMaxOffsets(table, schema, file, next);
    }
  }

  static Integer identityPartition(PartitionSpec spec, DataFile file, int sourceId) {
    List<PartitionField> fields = spec.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).sourceId() == sourceId && fields.get(i).transform().isIdentity()) {
        return file.partition().get(i, Integer.class);
      }
    }
    return null;
  }

  static <T> T bound(
      Map<Integer, ByteBuffer> bounds, int fieldId, org.apache.iceberg.types.Type type) {
    if (bounds == null || bounds.get(fieldId) == null) {
      return null;
    }
    return Conversions.fromByteBuffer(type, bounds.get(fieldId));
  }

  private static void readMaxOffsets(
      Table table, Schema schema, DataFile file, Map<Integer, Long> next) {
    if (file.format() != FileFormat.PARQUET) {
      throw new IllegalStateException(
          "Data file "
              + file.location()
              + " has no kafka.offset bounds and is not Parquet: cannot find its offsets");
    }
    Schema projection = schema.select(TopicTableLayout.PARTITION, TopicTableLayout.OFFSET);
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(projection)
            .createReaderFunc(fs -> GenericParquetReaders.buildReader(projection, fs))
            .build()) {
      for (Record row : rows) {
        Record kafka = (Record) row.getField(TopicTableLayout.KAFKA);
        next.merge(
            (Integer) kafka.getField("partition"), (Long) kafka.getField("offset") + 1, Math::max);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Reading the offsets of " + file.location() + " failed", e);
    }
  }

  /**
   * Adds the end a segment commit's summary records ({@code floe.partition}, {@code
   * floe.end-offset}), if any.
   */
  static void summaryBound(Snapshot snapshot, Map<Integer, Long> next) {
    String p = snapshot.summary().get(SegmentCommitter.SUMMARY_PARTITION);
    String end = snapshot.summary().get(SegmentCommitter.SUMMARY_END_OFFSET);
    if (p != null && end != null) {
      next.merge(Integer.parseInt(p), Long.parseLong(end) + 1, Math::max);
    }
  }

  /**
   * Adds the bounds of the files in the manifests {@code snapshot} wrote: its added files (and, for
   * a merged manifest, files still live that it carried over, whose offsets are in the table
   * anyway).
   */
  static void addedFileBounds(
      Table table, TableMetadata base, Snapshot snapshot, Map<Integer, Long> next) {
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      if (manifest.snapshotId() != null && manifest.snapshotId() == snapshot.snapshotId()) {
        try (ManifestReader<DataFile> files =
            ManifestFiles.read(manifest, table.io(), base.specsById())) {
          for (DataFile file : files) {
            fileBound(table, base, file, next);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
