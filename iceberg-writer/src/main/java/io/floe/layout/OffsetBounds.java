package io.floe.layout;

import io.floe.format.OffsetRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ManifestEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads where Kafka offsets lie in a topic table, from Iceberg metadata: per data file, its Kafka
 * partition and offset range (identity partition or column bounds; the file's own columns when its
 * metadata does not tell); per snapshot, where committed data ends per Kafka partition (file bounds
 * or a segment commit's {@link SegmentSummary}); and which files of a partition may hold an offset
 * range.
 */
public final class OffsetBounds {
  private final Table table;
  private final Schema schema;
  private final Map<Integer, PartitionSpec> specs;
  private final int partitionId;
  private final int offsetId;

  private OffsetBounds(Table table, Schema schema, Map<Integer, PartitionSpec> specs) {
    this.table = table;
    this.schema = schema;
    this.specs = specs;
    this.partitionId = schema.findField(TopicTableLayout.PARTITION).fieldId();
    this.offsetId = schema.findField(TopicTableLayout.OFFSET).fieldId();
  }

  /** Bounds read with the table's current schema and specs. */
  public static OffsetBounds of(Table table) {
    return new OffsetBounds(table, table.schema(), table.specs());
  }

  /** Bounds read with the schema and specs of {@code metadata}, files through {@code table}. */
  public static OffsetBounds of(Table table, TableMetadata metadata) {
    return new OffsetBounds(table, metadata.schema(), metadata.specsById());
  }

  /**
   * The data files of {@code partition} in {@code snapshot} that may hold offsets in {@code range},
   * with their column stats and the delete files that apply to them.
   */
  public static List<FileScanTask> filesInRange(
      Table table, Snapshot snapshot, int partition, OffsetRange range) {
    if (range.isEmpty()) {
      return List.of();
    }
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshot.snapshotId())
            .filter(
                Expressions.and(
                    Expressions.equal(TopicTableLayout.PARTITION, partition),
                    Expressions.greaterThanOrEqual(TopicTableLayout.OFFSET, range.first()),
                    Expressions.lessThanOrEqual(TopicTableLayout.OFFSET, range.last())))
            .ignoreResiduals()
            .includeColumnStats()
            .planWith(CallerRuns.EXECUTOR) // see CallerRuns: a copy plans between reading the
            // table and committing into it
            .planFiles()) {
      List<FileScanTask> out = new ArrayList<>();
      tasks.forEach(out::add);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The live data files of {@code partition} in {@code snapshot} that may hold offsets in {@code
   * range}, with their column stats, read from its manifests one after another in the calling
   * thread ({@code cache} keeps where the files of the manifests it read before lie). A scan plan
   * ({@link #filesInRange}) also finds the delete files, but its parallel iteration waits 10 ms
   * whenever a round of manifests yields no file, even when its tasks run in the caller: a copy
   * plans against tables of many small manifests, most of which hold nothing of its range.
   */
  public static List<DataFile> dataFilesInRange(
      Table table, Snapshot snapshot, int partition, OffsetRange range, ManifestFilesCache cache) {
    if (range.isEmpty()) {
      return List.of();
    }
    OffsetBounds bounds = of(table);
    Expression inPartition = Expressions.equal(TopicTableLayout.PARTITION, partition);
    Map<Integer, PartitionSpec> specs = table.specs();
    Map<Integer, ManifestEvaluator> bySpec = new HashMap<>();
    List<DataFile> out = new ArrayList<>();
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      ManifestEvaluator mayMatch =
          bySpec.computeIfAbsent(
              manifest.partitionSpecId(),
              id -> ManifestEvaluator.forRowFilter(inPartition, specs.get(id), true));
      if (!manifest.hasAddedFiles() && !manifest.hasExistingFiles() || !mayMatch.eval(manifest)) {
        continue;
      }
      out.addAll(cache.filesInRange(table, manifest, bounds, partition, range));
    }
    return out;
  }

  /**
   * The Kafka partition of the file's rows: its identity partition value, else its partition
   * column's bounds when they agree; null when neither tells.
   */
  public Integer partitionOf(DataFile file) {
    List<PartitionField> fields = specs.get(file.specId()).fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).sourceId() == partitionId && fields.get(i).transform().isIdentity()) {
        return file.partition().get(i, Integer.class);
      }
    }
    Integer lower = bound(file.lowerBounds(), partitionId, Types.IntegerType.get());
    Integer upper = bound(file.upperBounds(), partitionId, Types.IntegerType.get());
    return Objects.equals(lower, upper) ? lower : null;
  }

  /** The file's first and last offset from its column bounds; null when it has none. */
  public OffsetRange boundsOf(DataFile file) {
    Long first = bound(file.lowerBounds(), offsetId, Types.LongType.get());
    Long last = bound(file.upperBounds(), offsetId, Types.LongType.get());
    return first == null || last == null ? null : new OffsetRange(first, last);
  }

  /**
   * Per Kafka partition, the offsets the file holds: from its partition and column bounds, or, when
   * they do not tell, by reading its partition and offset columns.
   */
  public Map<Integer, OffsetRange> offsetsOf(DataFile file) {
    Integer partition = partitionOf(file);
    OffsetRange range = boundsOf(file);
    if (partition != null && range != null) {
      return Map.of(partition, range);
    }
    return readOffsets(file);
  }

  /**
   * Raises {@code next} per partition to the offset after the last one the data files of the
   * snapshot hold.
   */
  public void mergeFileEnds(long snapshotId, Map<Integer, Long> next) {
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshotId)
            .includeColumnStats()
            .planWith(CallerRuns.EXECUTOR)
            .planFiles()) {
      for (FileScanTask task : tasks) {
        mergeEnds(task.file(), next);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Raises {@code next} per partition to the offset after the last one in the files of the
   * manifests {@code snapshot} wrote: its added files (and, for a merged manifest, files still live
   * that it carried over, whose offsets are in the table anyway).
   */
  public void mergeAddedFileEnds(Snapshot snapshot, Map<Integer, Long> next) {
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      if (manifest.snapshotId() != null && manifest.snapshotId() == snapshot.snapshotId()) {
        try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, table.io(), specs)) {
          for (DataFile file : files) {
            mergeEnds(file, next);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  /**
   * Raises {@code next} to the offset after the end of each segment a segment commit's summary
   * records ({@link SegmentSummary#segmentsOf}), if the snapshot is one; returns whether it is.
   */
  public static boolean mergeSummaryEnd(Snapshot snapshot, Map<Integer, Long> next) {
    List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(snapshot.summary());
    for (SegmentSummary.Segment s : segments) {
      next.merge(s.partition(), s.endOffset() + 1, Math::max);
    }
    return !segments.isEmpty();
  }

  private void mergeEnds(DataFile file, Map<Integer, Long> next) {
    offsetsOf(file)
        .forEach((partition, range) -> next.merge(partition, range.last() + 1, Math::max));
  }

  private Map<Integer, OffsetRange> readOffsets(DataFile file) {
    Schema projection = schema.select(TopicTableLayout.PARTITION, TopicTableLayout.OFFSET);
    Accessor<StructLike> partitionColumn = projection.accessorForField(partitionId);
    Accessor<StructLike> offsetColumn = projection.accessorForField(offsetId);
    Map<Integer, OffsetRange> out = new HashMap<>();
    FileColumns.read(
        table,
        file,
        projection,
        row -> {
          long offset = (Long) offsetColumn.get(row);
          out.merge(
              (Integer) partitionColumn.get(row),
              new OffsetRange(offset, offset),
              OffsetRange::span);
        });
    return out;
  }

  private static <T> T bound(Map<Integer, ByteBuffer> bounds, int fieldId, Type type) {
    if (bounds == null || bounds.get(fieldId) == null) {
      return null;
    }
    return Conversions.fromByteBuffer(type, bounds.get(fieldId));
  }
}
