package io.floe.headview;

import io.floe.copy.Leftovers;
import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.format.OffsetRange;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Span;
import io.floe.layout.OffsetBounds;
import io.floe.layout.TopicTableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Carries head files that a tier commit passed in part over to the next head: a position delete
 * file hides each one's rows below the new boundary, so that the rows past it are served without
 * being read from Kafka and written again.
 */
final class HeadTrims {
  private final Table view;
  private final GenericFileWriterFactory writers;
  private final OutputFileFactory files;
  private long nanos;

  HeadTrims(Table view, Map<String, String> headWriteProperties) {
    this.view = view;
    Map<String, String> props = new HashMap<>(view.properties());
    props.putAll(headWriteProperties);
    this.writers =
        new GenericFileWriterFactory.Builder(view)
            .deleteFileFormat(FileFormat.PARQUET)
            .writerProperties(props)
            .build();
    this.files =
        OutputFileFactory.builderFor(view, 0, System.nanoTime())
            .format(FileFormat.PARQUET)
            .operationId("head-trim-" + UUID.randomUUID())
            .build();
  }

  /**
   * Each trimmed file with one delete file more, hiding its rows of offsets below the cut (found by
   * reading the file's offset column), and serving offsets from the cut on; on failure, deletes the
   * delete files it wrote.
   */
  List<HeadFile> trim(List<HeadPlan.Trim> trims) {
    long t = System.nanoTime();
    List<HeadFile> out = new ArrayList<>();
    List<String> written = new ArrayList<>();
    try {
      for (HeadPlan.Trim trim : trims) {
        HeadFile f = trim.file();
        Span span = f.offsets().get(trim.partition());
        List<DeleteFile> deletes = new ArrayList<>(f.deletes());
        deletes.addAll(
            PositionDeletes.write(
                view, writers, files, rowsBelow(f.file(), trim.cut()), written::add));
        out.add(
            new HeadFile(
                f.file(), Map.of(trim.partition(), new Span(trim.cut(), span.last())), deletes));
      }
      return out;
    } catch (RuntimeException e) {
      Leftovers.delete(view.io(), written);
      throw e;
    } finally {
      nanos += System.nanoTime() - t;
    }
  }

  /** Nanoseconds spent reading offsets and writing delete files. */
  long nanos() {
    return nanos;
  }

  /**
   * The rows of {@code file} whose offset is below {@code cut}, as runs of positions: its first
   * {@code cut - first} rows when it holds every offset between its first and last (no transaction
   * marker or aborted record in between, as its offset bounds and row count tell), else as its
   * offset column tells.
   */
  private List<RowRange> rowsBelow(DataFile file, long cut) {
    OffsetRange bounds = OffsetBounds.of(view).boundsOf(file);
    if (bounds != null && file.recordCount() == bounds.last() - bounds.first() + 1) {
      long rows = Math.min(cut, bounds.last() + 1) - bounds.first();
      return rows <= 0
          ? List.of()
          : List.of(new RowRange(file.location(), file.partition(), 0, rows));
    }
    Schema offsets = view.schema().select(TopicTableLayout.OFFSET);
    List<RowRange> out = new ArrayList<>();
    long position = 0;
    long runStart = -1;
    try (CloseableIterable<Record> rows =
        Parquet.read(view.io().newInputFile(file.location()))
            .project(offsets)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(offsets, fileSchema))
            .build()) {
      for (Record row : rows) {
        long offset = (Long) ((Record) row.get(0)).get(0);
        if (offset < cut && runStart < 0) {
          runStart = position;
        } else if (offset >= cut && runStart >= 0) {
          out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
          runStart = -1;
        }
        position++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Reading the offsets of head file " + file.location(), e);
    }
    if (runStart >= 0) {
      out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
    }
    return out;
  }
}
