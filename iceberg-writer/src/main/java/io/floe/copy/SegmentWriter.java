package io.floe.copy;

import io.floe.format.BatchEncoder;
import io.floe.format.BatchHeader;
import io.floe.format.Compression;
import io.floe.format.CorruptBatchException;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.format.SegmentBatchReader;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.WithoutHadoopDefaults;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.RowCodec;
import io.floe.rows.TableCodecs;
import io.floe.typed.SchemaEvolutionRequired;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one Kafka log segment into Parquet data files of its topic table, streaming one batch at a
 * time. Each batch is checked to re-encode exactly (uncompressed batches byte for byte; compressed
 * ones record for record) before anything is written; a batch that does not is refused with {@link
 * SegmentFormatException}. Records of transactions aborted within the segment are written too
 * (Kafka consumers need them) and hidden from Iceberg readers by position deletes. Control batches
 * are kept in the batch directory only. Nothing is committed here.
 */
public final class SegmentWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);
  private static final int LENGTH_CHECK_INTERVAL = 1000;

  private final Table table;
  private final Reencoding reencoding;
  private final TableCodecs codecs;
  private final long targetFileSizeBytes;

  public SegmentWriter(Table table) {
    this(table, Reencoding.CURRENT);
  }

  /**
   * A writer whose batch directory records the layout of batches re-encoded as {@code reencoding}
   * does.
   */
  public SegmentWriter(Table table, Reencoding reencoding) {
    this(table, reencoding, TableCodecs.withoutRegistry());
  }

  /**
   * As above, rows made with the codecs {@code codecs} gives for the table. A record whose writer
   * schema the table cannot hold yet stops the write with {@link SchemaEvolutionRequired} (its
   * files deleted), for the caller to evolve the table and write again.
   */
  public SegmentWriter(Table table, Reencoding reencoding, TableCodecs codecs) {
    this.codecs = codecs;
    this.table = table;
    this.reencoding = reencoding;
    this.targetFileSizeBytes =
        org.apache.iceberg.util.PropertyUtil.propertyAsLong(
            table.properties(),
            org.apache.iceberg.TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TopicTableOptions.DEFAULT_TARGET_FILE_SIZE);
  }

  /**
   * Writes the segment file. {@code operationId} names the files (use the segment id); on failure
   * every file this call wrote is deleted again and the exception propagates.
   */
  public WrittenSegment write(
      int partition, long segmentBaseOffset, Path segmentFile, String operationId) {
    Run run = new Run(partition, operationId);
    try (SegmentBatchReader reader = SegmentBatchReader.open(segmentFile)) {
      while (reader.hasNext()) {
        run.add(reader.next());
      }
      return run.finish(segmentBaseOffset);
    } catch (CorruptBatchException e) {
      run.abort();
      throw new SegmentFormatException(
          "Segment "
              + segmentFile
              + " of partition "
              + partition
              + " cannot be copied: "
              + e.getMessage(),
          e);
    } catch (IOException e) {
      run.abort();
      throw new UncheckedIOException(
          "Reading segment " + segmentFile + " failed: " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      run.abort();
      throw e;
    }
  }

  /** One open data file and the rows written to it so far. */
  private static final class OpenFile {
    final DataWriter<Record> writer;
    final String location;
    final StructLike partition;
    long rows;

    OpenFile(DataWriter<Record> writer, String location, StructLike partition) {
      this.writer = writer;
      this.location = location;
      this.partition = partition;
    }
  }

  private final class Run {
    private final int partition;
    private final PartitionSpec spec = table.spec();
    private final Schema schema = table.schema();
    private final RowCodec codec = codecs.forCopy(table, schema);
    private final PartitionKey partitionKey = new PartitionKey(spec, schema);
    private final InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    private final SamePartition samePartition = SamePartition.of(spec, schema);
    private OpenFile previousFile;
    private final FileWriterFactory<Record> writerFactory;
    private final OutputFileFactory fileFactory;
    private final Map<StructLike, OpenFile> open = new HashMap<>();
    private final List<DataFile> dataFiles = new ArrayList<>();
    private final List<DeleteFile> deleteFiles = new ArrayList<>();
    private final List<String> writtenLocations = new ArrayList<>();
    private final Map<Long, List<RowRange>> openTransactions = new HashMap<>();
    private final List<RowRange> aborted = new ArrayList<>();
    private final List<BatchDirectory.Entry> entries = new ArrayList<>();
    private long records;
    private long hidden;
    private long bytes;
    private long sinceLengthCheck;

    Run(int partition, String operationId) {
      this.partition = partition;
      this.writerFactory = WithoutHadoopDefaults.parquet(table, schema, table.sortOrder(), null);
      this.fileFactory =
          OutputFileFactory.builderFor(table, partition, 0)
              .format(FileFormat.PARQUET)
              .operationId(operationId == null ? UUID.randomUUID().toString() : operationId)
              .build();
    }

    void add(RecordBatch batch) {
      BatchHeader header = batch.header();
      bytes += header.sizeInBytes();
      if (header.isControl()) {
        addControl(batch);
        return;
      }
      List<KafkaRecord> batchRecords = batch.records();
      entries.add(directoryEntry(batch, batchRecords));
      for (KafkaRecord record : batchRecords) {
        Record row = codec.toRow(partition, header, record);
        OpenFile file = fileFor(row, RowCodec.visibleTimestamp(header, record));
        if (header.isTransactional()) {
          trackTransactional(header.producerId(), file);
        }
        file.writer.write(row);
        file.rows++;
        records++;
        if (++sinceLengthCheck >= LENGTH_CHECK_INTERVAL) {
          sinceLengthCheck = 0;
          rollFullFiles();
        }
      }
    }

    private void addControl(RecordBatch batch) {
      ByteBuffer raw = batch.rawBytes();
      byte[] copy = new byte[raw.remaining()];
      raw.duplicate().get(copy);
      BatchHeader header = batch.header();
      entries.add(
          new BatchDirectory.Entry(header, batch.position(), copy.length, header.crc(), copy));
      for (KafkaRecord marker : batch.records()) {
        ByteBuffer key = ByteBuffer.wrap(marker.key());
        key.getShort(); // version
        short type = key.getShort();
        List<RowRange> ranges = openTransactions.remove(header.producerId());
        if (type == 0 && ranges != null) { // ABORT
          aborted.addAll(ranges);
          for (RowRange r : ranges) {
            hidden += r.count();
          }
        }
      }
    }

    private void trackTransactional(long producerId, OpenFile file) {
      List<RowRange> ranges = openTransactions.computeIfAbsent(producerId, id -> new ArrayList<>());
      RowRange last = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
      if (last != null
          && last.location().equals(file.location)
          && last.firstRow() + last.count() == file.rows) {
        ranges.set(
            ranges.size() - 1,
            new RowRange(last.location(), last.partition(), last.firstRow(), last.count() + 1));
      } else {
        ranges.add(new RowRange(file.location, file.partition, file.rows, 1));
      }
    }

    /**
     * The batch's directory entry, after checking that re-encoding loses nothing: its records
     * re-encode to the same uncompressed bytes, and an uncompressed batch to the same batch. Only
     * segments copied as V1 or V2 compress here, to learn the sizes their positions add up.
     */
    private BatchDirectory.Entry directoryEntry(RecordBatch batch, List<KafkaRecord> batchRecords) {
      BatchHeader header = batch.header();
      byte[] stored = batch.uncompressedRecordBytes();
      if (!Arrays.equals(BatchEncoder.encodeRecords(header, batchRecords), stored)) {
        throw refuse(
            batch,
            "re-encoding its records does not give back the same bytes (a non-canonical encoding)");
      }
      if (reencoding.positionsAreLowerBounds() && Reencoding.compresses(header)) {
        return new BatchDirectory.Entry(
            header,
            batch.position(),
            Reencoding.LEAST_COMPRESSED_SIZE,
            Reencoding.recordsCrc(stored),
            null);
      }
      ByteBuffer encoded = BatchEncoder.encode(header, batchRecords.size(), stored, reencoding);
      if (header.compression() == Compression.NONE && !encoded.equals(batch.rawBytes())) {
        throw refuse(batch, "re-encoding does not give back the same bytes");
      }
      return new BatchDirectory.Entry(
          header, batch.position(), encoded.remaining(), BatchHeader.crcOf(encoded), null);
    }

    private SegmentFormatException refuse(RecordBatch batch, String why) {
      return new SegmentFormatException(
          "Batch at position "
              + batch.position()
              + " (base offset "
              + batch.header().baseOffset()
              + ") of partition "
              + partition
              + " cannot be stored exactly: "
              + why);
    }

    /**
     * The open file of {@code row}'s partition: the previous row's when its timestamp tells they
     * share a partition (computing a row's partition key converts its timestamps back from {@code
     * OffsetDateTime}s: about a tenth of a copy's CPU for 100-byte records).
     */
    private OpenFile fileFor(Record row, long timestampMillis) {
      if (samePartition.asPrevious(partition, timestampMillis) && previousFile != null) {
        return previousFile;
      }
      previousFile = partitionFile(row);
      return previousFile;
    }

    private OpenFile partitionFile(Record row) {
      partitionKey.partition(wrapper.wrap(row));
      OpenFile file = open.get(partitionKey);
      if (file == null) {
        StructLike key = partitionKey.copy();
        EncryptedOutputFile out = fileFactory.newOutputFile(spec, key);
        writtenLocations.add(out.encryptingOutputFile().location());
        file =
            new OpenFile(
                writerFactory.newDataWriter(out, spec, key),
                out.encryptingOutputFile().location(),
                key);
        open.put(key, file);
      }
      return file;
    }

    private void rollFullFiles() {
      open.values()
          .removeIf(
              file -> {
                if (file.writer.length() >= targetFileSizeBytes) {
                  close(file);
                  if (file == previousFile) {
                    previousFile = null;
                  }
                  return true;
                }
                return false;
              });
    }

    private void close(OpenFile file) {
      try {
        file.writer.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Closing data file " + file.location + " failed", e);
      }
      dataFiles.add(file.writer.toDataFile());
    }

    WrittenSegment finish(long segmentBaseOffset) {
      open.values().forEach(this::close);
      open.clear();
      writeAbortDeletes();
      BatchDirectory directory = new BatchDirectory(entries);
      long lastOffset =
          entries.isEmpty()
              ? segmentBaseOffset - 1
              : entries.get(entries.size() - 1).header().lastOffset();
      LOG.debug(
          "Wrote partition {} offsets {}..{}: {} batches, {} records ({} hidden) into {} data and {} delete files",
          partition,
          segmentBaseOffset,
          lastOffset,
          entries.size(),
          records,
          hidden,
          dataFiles.size(),
          deleteFiles.size());
      return new WrittenSegment(
          partition,
          segmentBaseOffset,
          lastOffset,
          List.copyOf(dataFiles),
          List.copyOf(deleteFiles),
          directory,
          records,
          hidden,
          bytes,
          codec.payloadCounts());
    }

    private void writeAbortDeletes() {
      deleteFiles.addAll(
          PositionDeletes.write(table, writerFactory, fileFactory, aborted, writtenLocations::add));
    }

    void abort() {
      for (OpenFile file : open.values()) {
        try {
          file.writer.close();
        } catch (IOException | RuntimeException e) {
          LOG.debug("Closing {} after a failure failed too", file.location, e);
        }
      }
      Leftovers.delete(table.io(), writtenLocations);
    }
  }
}
