package io.floe.bench;

import io.floe.format.BatchHeader;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.SegmentBatchReader;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.WithoutHadoopDefaults;
import io.floe.rows.TableCodecs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The Parquet floor of a copy: what any segment-to-Iceberg writer has to do at least. It decodes
 * the segment's records with Floe's segment reader (CRC check and batch decompression included, as
 * a Kafka consumer does), turns each into a row of the topic table with Floe's row model ({@code
 * RowCodec.toRow}; typed values: {@link TypedFloorRows}), and writes the rows with Iceberg's
 * generic Parquet writer into data files of the Floe table's layout: its schema, partition spec,
 * sort order id and properties (Parquet codec, row group, dictionary and target file sizes),
 * through the table's FileIO (the same S3 server), rolling files at the table's target size as Floe
 * does.
 *
 * <p>Beyond this floor a Floe copy re-encodes every batch and checks it gives back the stored bytes
 * (and its CRC), builds the batch directory (control batches included), tracks transactions and
 * writes position deletes for aborted ones, writes the sidecar and segment manifest, and commits
 * into the catalog. The floor does none of this and commits nothing: its files are deleted after
 * being read back.
 */
final class ParquetFloor {
  private static final int LENGTH_CHECK_INTERVAL = 1000;

  private ParquetFloor() {}

  /** The data files the floor wrote, and the rows in them. */
  record Written(List<DataFile> files, long rows) {
    long bytes() {
      return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }
  }

  /** How the floor makes the row of a record. */
  @FunctionalInterface
  interface Rows {
    Record toRow(int partition, BatchHeader header, KafkaRecord record) throws IOException;
  }

  /**
   * Writes the segment's records as rows of {@code table}'s layout, made by Floe's row model;
   * nothing is committed.
   */
  static Written copy(Table table, int partition, Path segment, String operationId)
      throws IOException {
    return copy(
        table,
        partition,
        segment,
        operationId,
        TableCodecs.withoutRegistry().forCopy(table, table.schema())::toRow);
  }

  /** Writes the segment's records as rows {@code codec} makes; nothing is committed. */
  static Written copy(Table table, int partition, Path segment, String operationId, Rows codec)
      throws IOException {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    PartitionKey partitionKey = new PartitionKey(spec, schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    // Floe's writers skip Hadoop's default resources; so does the floor, or the ratio would count
    // that saving as Floe's.
    FileWriterFactory<Record> writers =
        WithoutHadoopDefaults.parquet(table, schema, table.sortOrder(), null);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, partition, 0)
            .format(FileFormat.PARQUET)
            .operationId(operationId)
            .build();
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TopicTableOptions.DEFAULT_TARGET_FILE_SIZE);
    Map<StructLike, DataWriter<Record>> open = new HashMap<>();
    List<DataFile> written = new ArrayList<>();
    long rows = 0;
    int sinceLengthCheck = 0;
    try (SegmentBatchReader reader = SegmentBatchReader.open(segment)) {
      while (reader.hasNext()) {
        RecordBatch batch = reader.next();
        BatchHeader header = batch.header();
        if (header.isControl()) {
          continue;
        }
        for (KafkaRecord record : batch.records()) {
          Record row = codec.toRow(partition, header, record);
          partitionKey.partition(wrapper.wrap(row));
          DataWriter<Record> writer = open.get(partitionKey);
          if (writer == null) {
            StructLike key = partitionKey.copy();
            EncryptedOutputFile out = files.newOutputFile(spec, key);
            writer = writers.newDataWriter(out, spec, key);
            open.put(key, writer);
          }
          writer.write(row);
          rows++;
          if (++sinceLengthCheck >= LENGTH_CHECK_INTERVAL) {
            sinceLengthCheck = 0;
            rollFull(open, targetFileSize, written);
          }
        }
      }
    }
    for (DataWriter<Record> writer : open.values()) {
      writer.close();
      written.add(writer.toDataFile());
    }
    return new Written(List.copyOf(written), rows);
  }

  private static void rollFull(
      Map<StructLike, DataWriter<Record>> open, long targetFileSize, List<DataFile> written)
      throws IOException {
    var it = open.values().iterator();
    while (it.hasNext()) {
      DataWriter<Record> writer = it.next();
      if (writer.length() >= targetFileSize) {
        writer.close();
        written.add(writer.toDataFile());
        it.remove();
      }
    }
  }

  /**
   * Reads the floor's files back into records of the table's schema with Iceberg's generic Parquet
   * reader (as a Floe fetch reads its files, without its offset filter and re-encoding); returns
   * the rows read.
   */
  static long read(Table table, Written written) throws IOException {
    Schema schema = table.schema();
    long rows = 0;
    for (DataFile file : written.files()) {
      try (CloseableIterable<Record> records =
          Parquet.read(table.io().newInputFile(file.location()))
              .project(schema)
              .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
              .build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
    }
    if (rows != written.rows()) {
      throw new IllegalStateException(
          "The floor read " + rows + " rows back, wrote " + written.rows());
    }
    return rows;
  }

  static void delete(Table table, Written written) {
    for (DataFile file : written.files()) {
      table.io().deleteFile(file.location());
    }
  }

  /**
   * The floor's figures and the ratios against it into the workload's {@code r}: CPU of a copy and
   * of reading per GiB of segment, wall MiB/s of segment bytes, and the copy CPU of Floe against
   * the floor, the raw copy, and the raw copy plus the floor (a classic tier plus an Iceberg sink);
   * catch-up (first and repeated whole-segment fetch) MiB/s against the raw baseline's.
   */
  static void putFigures(
      Map<String, Object> r,
      long bytes,
      FloeBench.Measured raw,
      FloeBench.Measured floe,
      FloeBench.Measured floorCopy,
      FloeBench.Measured floorRead,
      FloeBench.Measured rawFetch,
      FloeBench.Measured floeFetch,
      FloeBench.Measured repeatFetch) {
    double mib = 1024.0 * 1024;
    double gib = bytes / (mib * 1024);
    r.put("floor_copy_cpu_s_per_gib", FloeBench.round(floorCopy.cpuSeconds() / gib));
    r.put("floor_copy_mib_per_s", FloeBench.round(bytes / mib / floorCopy.seconds()));
    r.put("floor_read_cpu_s_per_gib", FloeBench.round(floorRead.cpuSeconds() / gib));
    r.put("read_floor_mib_per_s", FloeBench.round(bytes / mib / floorRead.seconds()));
    r.put(
        "floor_bytes_ratio",
        FloeBench.round(((Written) floorCopy.value()).bytes() / (double) bytes));
    r.put("copy_cpu_vs_floor", FloeBench.round(floe.cpuSeconds() / floorCopy.cpuSeconds()));
    r.put("copy_cpu_vs_raw", FloeBench.round(floe.cpuSeconds() / raw.cpuSeconds()));
    r.put(
        "copy_cpu_vs_raw_plus_etl",
        FloeBench.round(floe.cpuSeconds() / (raw.cpuSeconds() + floorCopy.cpuSeconds())));
    // Catch-up ratios compare the time to serve the whole segment (the same records): the bytes
    // served differ where a fetch compresses batches at another level than the producer did.
    double repeatRate = (Long) repeatFetch.value() / repeatFetch.seconds();
    r.put("catchup_vs_raw", FloeBench.round(rawFetch.seconds() / floeFetch.seconds()));
    r.put("repeat_catchup_vs_raw", FloeBench.round(rawFetch.seconds() / repeatFetch.seconds()));
    r.put("repeat_catchup_mib_per_s", FloeBench.round(repeatRate / mib));
    r.put("catchup_vs_read_floor", FloeBench.round(floorRead.seconds() / floeFetch.seconds()));
    r.put("fetch.served_bytes_ratio", FloeBench.round((Long) floeFetch.value() / (double) bytes));
  }

  /** One line of stdout for the workload. */
  static String line(String workload, Map<String, Object> r) {
    return String.format(
        "%s floor: copy CPU s/GiB Floe %s, floor %s, raw %s; copy_cpu_vs_floor %s, vs raw %s, vs"
            + " raw+ETL %s; MiB/s read floor %s, Floe catch-up %s (repeat %s), raw %s;"
            + " catchup_vs_raw %s",
        workload,
        r.get("copy.floe_cpu_s_per_gib"),
        r.get("floor_copy_cpu_s_per_gib"),
        r.get("copy.raw_cpu_s_per_gib"),
        r.get("copy_cpu_vs_floor"),
        r.get("copy_cpu_vs_raw"),
        r.get("copy_cpu_vs_raw_plus_etl"),
        r.get("read_floor_mib_per_s"),
        r.get("fetch.floe_mib_per_s"),
        r.get("repeat_catchup_mib_per_s"),
        r.get("fetch.raw_mib_per_s"),
        r.get("catchup_vs_raw"));
  }
}
