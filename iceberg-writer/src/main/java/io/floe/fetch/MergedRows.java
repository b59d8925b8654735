package io.floe.fetch;

import io.floe.layout.TopicTableLayout;
import io.floe.rows.RowCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;

/**
 * The rows of a segment's data files from an offset on, in offset order (a compaction may have
 * spread them over several files). Not thread-safe: one thread reads it at a time.
 */
final class MergedRows implements RowSource {
  private final List<CloseableIterable<Record>> sources = new ArrayList<>();
  private final PriorityQueue<Head> heads =
      new PriorityQueue<>(Comparator.comparingLong(h -> h.offset));

  private static final class Head {
    final CloseableIterator<Record> rows;
    final RowCodec codec;
    Record row;
    long offset;

    Head(CloseableIterator<Record> rows, RowCodec codec) {
      this.rows = rows;
      this.codec = codec;
    }

    boolean advance() {
      if (!rows.hasNext()) {
        return false;
      }
      row = rows.next();
      offset = codec.offsetOf(row);
      return true;
    }
  }

  /** Opens {@code dataFiles} (rows of {@code schema}) at {@code fromOffset}. */
  MergedRows(FileIO io, Schema schema, RowCodec codec, List<String> dataFiles, long fromOffset) {
    try {
      for (String location : dataFiles) {
        CloseableIterable<Record> rows =
            Parquet.read(io.newInputFile(location))
                .project(schema)
                .createReaderFunc(
                    fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .filter(Expressions.greaterThanOrEqual(TopicTableLayout.OFFSET, fromOffset))
                .build();
        sources.add(rows);
        Head head = new Head(rows.iterator(), codec);
        while (head.advance()) {
          if (head.offset >= fromOffset) {
            heads.add(head);
            break;
          }
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public Record next() throws IOException {
    Head head = heads.poll();
    if (head == null) {
      return null;
    }
    Record row = head.row;
    try {
      if (head.advance()) {
        heads.add(head);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return row;
  }

  @Override
  public void close() {
    for (CloseableIterable<Record> source : sources) {
      try {
        source.close();
      } catch (IOException | RuntimeException ignored) {
        // releasing readers of an abandoned fetch must not fail or log noise
      }
    }
    sources.clear();
    heads.clear();
  }
}
