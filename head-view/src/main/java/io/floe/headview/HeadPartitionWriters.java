package io.floe.headview;

import io.floe.copy.SamePartition;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;

/**
 * Head rows to rolling data files, one writer per table partition. A row's partition is computed
 * only when it may differ from the previous row's: a consumer hands over records a partition at a
 * time, and within one Kafka partition consecutive records mostly fall in the same hour or day.
 */
final class HeadPartitionWriters implements Closeable {
  private final FileWriterFactory<Record> writers;
  private final OutputFileFactory files;
  private final FileIO io;
  private final long targetFileSize;
  private final PartitionSpec spec;
  private final PartitionKey key;
  private final InternalRecordWrapper wrapper;
  private final SamePartition samePartition;
  private final Map<StructLike, RollingDataWriter<Record>> open = new HashMap<>();
  private RollingDataWriter<Record> previous;
  private boolean closed;

  HeadPartitionWriters(
      FileWriterFactory<Record> writers,
      OutputFileFactory files,
      FileIO io,
      long targetFileSize,
      PartitionSpec spec,
      Schema schema) {
    this.writers = writers;
    this.files = files;
    this.io = io;
    this.targetFileSize = targetFileSize;
    this.spec = spec;
    this.key = new PartitionKey(spec, schema);
    this.wrapper = new InternalRecordWrapper(schema.asStruct());
    this.samePartition = SamePartition.of(spec, schema);
  }

  /** Writes a row of Kafka partition {@code kafkaPartition} with this {@code kafka.timestamp}. */
  void write(Record row, int kafkaPartition, long timestampMillis) {
    if (!samePartition.asPrevious(kafkaPartition, timestampMillis) || previous == null) {
      previous = writerOf(row);
    }
    previous.write(row);
  }

  private RollingDataWriter<Record> writerOf(Record row) {
    key.partition(wrapper.wrap(row));
    RollingDataWriter<Record> writer = open.get(key);
    if (writer == null) {
      StructLike partition = key.copy();
      writer = new RollingDataWriter<>(writers, files, io, targetFileSize, spec, partition);
      open.put(partition, writer);
    }
    return writer;
  }

  /** Closes every writer (all of them, even when one fails; the first failure is thrown). */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    Exception failure = null;
    for (RollingDataWriter<Record> writer : open.values()) {
      try {
        writer.close();
      } catch (IOException | RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure != null) {
      throw (RuntimeException) failure;
    }
  }

  /** The data files written, once closed (those of the writers that closed, after a failure). */
  List<DataFile> dataFiles() {
    List<DataFile> out = new ArrayList<>();
    for (RollingDataWriter<Record> writer : open.values()) {
      try {
        out.addAll(writer.result().dataFiles());
      } catch (IllegalStateException e) {
        // a writer that failed to close has no result; its partial file is the caller's to delete
      }
    }
    return out;
  }
}
