package io.floe.headview;

import io.floe.copy.Leftovers;
import io.floe.format.OffsetRange;
import io.floe.layout.OffsetBounds;
import io.floe.layout.WithoutHadoopDefaults;
import io.floe.rows.RowCodec;
import io.floe.rows.TableCodecs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes head records read from Kafka as Parquet data files of a head view. A large read goes to
 * files of the table's partition spec (one or more per Kafka partition); a small one, the usual
 * query-time increment, goes to a single file of an unpartitioned spec the view adds, so that an
 * increment costs one file however many partitions the topic has.
 */
final class HeadWriter {
  /**
   * Increments of at most this many records (by offset span) spanning several partitions go to one
   * file.
   */
  static final long SINGLE_FILE_MAX_RECORDS = 10_000;

  /** First and last offset of one Kafka partition in a file. */
  record Span(long first, long last) {}

  /**
   * A head data file, per Kafka partition the offsets it serves (null when unknown: never reused
   * then), and the position delete files that hide its rows below them (a file a tier commit passed
   * in part keeps its rows past the new boundary).
   */
  record HeadFile(DataFile file, Map<Integer, Span> offsets, List<DeleteFile> deletes) {
    HeadFile(DataFile file, Map<Integer, Span> offsets) {
      this(file, offsets, List.of());
    }

    HeadFile {
      deletes = List.copyOf(deletes);
    }

    /** Its data file's and delete files' locations. */
    List<String> locations() {
      List<String> out = new ArrayList<>();
      out.add(file.location());
      deletes.forEach(d -> out.add(d.location()));
      return out;
    }

    /** The data and delete file locations of {@code files}. */
    static List<String> locationsOf(List<HeadFile> files) {
      return files.stream().flatMap(f -> f.locations().stream()).toList();
    }
  }

  /**
   * Offsets [from[p], to[p]) per partition. {@code again}: records an earlier head held, read again
   * because a file that held them was dropped; they are next in line to be tiered, one partition at
   * a time, so they never go to a file shared by several partitions.
   */
  record Ranges(Map<Integer, Long> from, Map<Integer, Long> to, boolean again) {
    Ranges(Map<Integer, Long> from, Map<Integer, Long> to) {
      this(from, to, false);
    }

    long records() {
      long n = 0;
      for (Map.Entry<Integer, Long> e : from.entrySet()) {
        n += Math.max(0, to.getOrDefault(e.getKey(), e.getValue()) - e.getValue());
      }
      return n;
    }
  }

  private final TableCodecs codecs;
  private final Table view;
  private final Schema schema;
  private final Map<String, String> writeProps;
  private final FileWriterFactory<Record> writers;
  private final OutputFileFactory files;
  private long writeNanos;

  HeadWriter(Table view, Map<String, String> headWriteProperties, TableCodecs codecs) {
    this.codecs = codecs;
    this.view = view;
    this.schema = view.schema();
    this.writeProps = new HashMap<>(view.properties());
    writeProps.putAll(headWriteProperties);
    this.writers = WithoutHadoopDefaults.parquet(view, schema, null, writeProps);
    this.files =
        OutputFileFactory.builderFor(view, 0, System.nanoTime())
            .format(FileFormat.PARQUET)
            .operationId("head-" + UUID.randomUUID())
            .build();
  }

  /** Its writer factory (data files, and position delete files for {@link HeadTrims}). */
  FileWriterFactory<Record> writerFactory() {
    return writers;
  }

  /** Where its files go. */
  OutputFileFactory outputFiles() {
    return files;
  }

  /** Nanoseconds spent converting and writing rows (the rest of a write is reading Kafka). */
  long writeNanos() {
    return writeNanos;
  }

  /**
   * Reads the ranges from Kafka and writes them, each range to files of its own (a file never spans
   * two ranges, so it never holds offsets far apart); on failure, deletes what it wrote.
   */
  List<HeadFile> write(KafkaHead kafka, String topic, List<Ranges> reads) {
    List<HeadFile> out = new ArrayList<>();
    try {
      for (Ranges range : reads) {
        out.addAll(write(kafka, topic, range));
      }
      return out;
    } catch (RuntimeException e) {
      Leftovers.delete(view.io(), out.stream().map(f -> f.file().location()).toList());
      throw e;
    }
  }

  private List<HeadFile> write(KafkaHead kafka, String topic, Ranges range) {
    int partitions = 0;
    for (Map.Entry<Integer, Long> e : range.from().entrySet()) {
      partitions += range.to().getOrDefault(e.getKey(), e.getValue()) > e.getValue() ? 1 : 0;
    }
    if (partitions == 0) {
      return List.of();
    }
    PartitionSpec single = unpartitionedSpec();
    boolean small = partitions > 1 && range.records() <= SINGLE_FILE_MAX_RECORDS && !range.again();
    if (single != null && (view.spec().isUnpartitioned() || small)) {
      return writeSingle(kafka, topic, range, single);
    }
    return writePartitioned(kafka, topic, range);
  }

  private PartitionSpec unpartitionedSpec() {
    for (PartitionSpec spec : view.specs().values()) {
      if (spec.isUnpartitioned()) {
        return spec;
      }
    }
    return null;
  }

  private List<HeadFile> writePartitioned(KafkaHead kafka, String topic, Ranges range) {
    RowCodec rows = codecs.forHead(view);
    long targetSize =
        PropertyUtil.propertyAsLong(
            writeProps,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    HeadPartitionWriters writer =
        new HeadPartitionWriters(writers, files, view.io(), targetSize, view.spec(), schema);
    RuntimeException failure = null;
    try {
      kafka.read(
          topic,
          range.from(),
          range.to(),
          r -> {
            long t = System.nanoTime();
            writer.write(rows.newRow(ConsumedRecords.of(r)), r.partition(), r.timestamp());
            writeNanos += System.nanoTime() - t;
          });
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      failure = close(writer, failure);
    }
    List<DataFile> written = writer.dataFiles();
    if (failure != null) {
      Leftovers.delete(view.io(), written.stream().map(DataFile::location).toList());
      throw failure;
    }
    List<HeadFile> out = new ArrayList<>();
    for (DataFile f : written) {
      out.add(new HeadFile(f, offsetsFromBounds(f)));
    }
    return out;
  }

  private List<HeadFile> writeSingle(
      KafkaHead kafka, String topic, Ranges range, PartitionSpec spec) {
    RowCodec rows = codecs.forHead(view);
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(), spec, null);
    Map<Integer, Span> offsets = new TreeMap<>();
    long[] count = new long[1];
    RuntimeException failure = null;
    try {
      kafka.read(
          topic,
          range.from(),
          range.to(),
          r -> {
            long t = System.nanoTime();
            writer.write(rows.newRow(ConsumedRecords.of(r)));
            offsets.merge(
                r.partition(),
                new Span(r.offset(), r.offset()),
                (a, b) -> new Span(Math.min(a.first(), b.first()), Math.max(a.last(), b.last())));
            count[0]++;
            writeNanos += System.nanoTime() - t;
          });
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      failure = close(writer, failure);
    }
    String location = writer.toDataFile() == null ? null : writer.toDataFile().location();
    if (failure != null || count[0] == 0) {
      if (location != null) {
        Leftovers.delete(view.io(), List.of(location));
      }
      if (failure != null) {
        throw failure;
      }
      return List.of();
    }
    return List.of(new HeadFile(writer.toDataFile(), Map.copyOf(offsets)));
  }

  private RuntimeException close(AutoCloseable writer, RuntimeException failure) {
    long t = System.nanoTime();
    try {
      writer.close();
    } catch (Exception e) {
      if (failure == null) {
        failure =
            e instanceof RuntimeException re
                ? re
                : new UncheckedIOException(
                    "Writing head files failed",
                    e instanceof IOException io ? io : new IOException(e));
      }
    } finally {
      writeNanos += System.nanoTime() - t;
    }
    return failure;
  }

  /**
   * A partitioned file's Kafka partition and offset bounds, from its partition tuple (or partition
   * column bounds) and offset column bounds.
   */
  private Map<Integer, Span> offsetsFromBounds(DataFile file) {
    OffsetBounds bounds = OffsetBounds.of(view);
    Integer partition = bounds.partitionOf(file);
    OffsetRange offsets = bounds.boundsOf(file);
    if (partition == null || offsets == null) {
      return null;
    }
    return Map.of(partition, new Span(offsets.first(), offsets.last()));
  }
}
