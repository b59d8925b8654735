package io.floe.headview;

import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.copy.RowRuns;
import io.floe.format.OffsetRange;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Span;
import io.floe.layout.FileColumns;
import io.floe.layout.OffsetBounds;
import io.floe.layout.TopicTableLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Carries head files that a tier commit passed in part over to the next head: a position delete
 * file hides each one's rows below the new boundary, so that the rows past it are served without
 * being read from Kafka and written again. A file trimmed before keeps its delete files, which hide
 * its rows below the offsets it serves; the new one hides only the rows from there to the new
 * boundary (one delete row per hidden row, so a file that tier commits pass bit by bit does not
 * write its hidden rows again at each of them).
 */
final class HeadTrims {
  private final Table view;
  private final FileWriterFactory<Record> writers;
  private final OutputFileFactory files;
  private long nanos;

  /** Trims of {@code view}'s files, written with a head writer's factories. */
  HeadTrims(Table view, FileWriterFactory<Record> writers, OutputFileFactory files) {
    this.view = view;
    this.writers = writers;
    this.files = files;
  }

  /**
   * Each trimmed file with one delete file more, hiding its rows of offsets from the first it
   * served to the cut, and serving offsets from the cut on; the location of every delete file goes
   * to {@code onWritten} as it is written (the caller deletes them if the head is not committed).
   */
  List<HeadFile> trim(List<HeadPlan.Trim> trims, Consumer<String> onWritten) {
    long t = System.nanoTime();
    try {
      List<HeadFile> out = new ArrayList<>();
      for (HeadPlan.Trim trim : trims) {
        HeadFile f = trim.file();
        Span span = f.offsets().get(trim.partition());
        List<DeleteFile> deletes = new ArrayList<>(f.deletes());
        deletes.addAll(
            PositionDeletes.write(
                view, writers, files, rowsBetween(f.file(), span.first(), trim.cut()), onWritten));
        out.add(
            new HeadFile(
                f.file(), Map.of(trim.partition(), new Span(trim.cut(), span.last())), deletes));
      }
      return out;
    } finally {
      nanos += System.nanoTime() - t;
    }
  }

  /** Nanoseconds spent reading offsets and writing delete files. */
  long nanos() {
    return nanos;
  }

  /**
   * The rows of {@code file} whose offset is at least {@code from} and below {@code cut}, as runs
   * of positions: rows {@code from - first} to {@code cut - first} when it holds every offset
   * between its first and last (no transaction marker or aborted record in between, as its offset
   * bounds and row count tell), else as its offset column tells.
   */
  private List<RowRange> rowsBetween(DataFile file, long from, long cut) {
    OffsetRange bounds = OffsetBounds.of(view).boundsOf(file);
    if (bounds != null && file.recordCount() == bounds.last() - bounds.first() + 1) {
      long firstRow = Math.max(from, bounds.first()) - bounds.first();
      long rows = Math.min(cut, bounds.last() + 1) - bounds.first() - firstRow;
      return rows <= 0
          ? List.of()
          : List.of(new RowRange(file.location(), file.partition(), firstRow, rows));
    }
    Schema schema = view.schema();
    Schema projection = schema.select(TopicTableLayout.OFFSET);
    Accessor<StructLike> offset =
        projection.accessorForField(schema.findField(TopicTableLayout.OFFSET).fieldId());
    List<RowRange> out = new ArrayList<>();
    RowRuns runs = new RowRuns(file, out);
    FileColumns.read(
        view,
        file,
        projection,
        row -> {
          long o = (Long) offset.get(row);
          runs.next(o >= from && o < cut);
        });
    runs.finish();
    return out;
  }
}
