package io.floe.commit;

import io.floe.copy.AbortedTransaction;
import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.copy.SegmentFormatException;
import io.floe.copy.WrittenSegment;
import io.floe.layout.TopicTableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.Tasks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a written segment as one Iceberg snapshot. In the same commit it removes the files of any
 * earlier copy of the same offsets (Kafka retries a copy under a new segment id), so a retry never
 * duplicates rows, and hides the earlier-segment records of transactions this segment's markers
 * abort. Concurrent commits into one table are grouped into one catalog commit (one snapshot per
 * segment still, see {@link GroupCommit}). Conflicts with concurrent writers are retried with
 * exponential backoff, planning again against the new table state each time.
 */
public final class SegmentCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCommitter.class);

  public static final String SUMMARY_TOPIC_ID = "floe.topic-id";
  public static final String SUMMARY_PARTITION = "floe.partition";
  public static final String SUMMARY_START_OFFSET = "floe.start-offset";
  public static final String SUMMARY_END_OFFSET = "floe.end-offset";
  public static final String SUMMARY_SEGMENT_ID = "floe.segment-id";
  public static final String SUMMARY_REPLACED_FILES = "floe.replaced-files";

  private final int maxAttempts;
  private final long minBackoffMs;
  private final long maxBackoffMs;
  private final GroupCommit groups = new GroupCommit();

  public static final int DEFAULT_MAX_ATTEMPTS = 10;
  public static final long DEFAULT_MIN_BACKOFF_MS = 100;
  public static final long DEFAULT_MAX_BACKOFF_MS = 10_000;

  public SegmentCommitter() {
    this(DEFAULT_MAX_ATTEMPTS, DEFAULT_MIN_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
  }

  public SegmentCommitter(int maxAttempts, long minBackoffMs, long maxBackoffMs) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1");
    }
    this.maxAttempts = maxAttempts;
    this.minBackoffMs = minBackoffMs;
    this.maxBackoffMs = maxBackoffMs;
  }

  /** What a commit did. */
  public record Result(long snapshotId, int replacedDataFiles, int attempts) {}

  /**
   * Commits the segment. {@code abortedTransactions} is the segment's transaction index (may be
   * empty): entries whose first offset lies before the segment are hidden in the earlier files that
   * hold them.
   */
  public Result commit(
      Table table,
      WrittenSegment segment,
      String topicId,
      String segmentId,
      List<AbortedTransaction> abortedTransactions) {
    Objects.requireNonNull(table, "table");
    AtomicInteger attempts = new AtomicInteger();
    AtomicReference<Result> result = new AtomicReference<>();
    List<DeleteFile> previousAttemptDeletes = new ArrayList<>();
    Tasks.foreach(segment)
        .retry(maxAttempts - 1)
        .exponentialBackoff(minBackoffMs, maxBackoffMs, 10 * 60_000L, 2.0)
        .onlyRetryOn(CommitFailedException.class, ValidationException.class)
        .run(
            s -> {
              attempts.incrementAndGet();
              deleteQuietly(table, previousAttemptDeletes);
              previousAttemptDeletes.clear();
              result.set(
                  attempt(
                      table,
                      s,
                      topicId,
                      segmentId,
                      abortedTransactions,
                      previousAttemptDeletes,
                      attempts.get()));
            });
    return result.get();
  }

  private Result attempt(
      Table table,
      WrittenSegment segment,
      String topicId,
      String segmentId,
      List<AbortedTransaction> aborted,
      List<DeleteFile> writtenHere,
      int attempt) {
    if (attempt > 1) {
      // The first attempt plans against the table as the caller holds it (TieredSegments keeps one
      // instance per
      // topic, current as of this process's last commit): a stale view only costs a retry, since
      // validation
      // refuses any file added to the partition since that base.
      table.refresh();
    }
    Snapshot base = table.currentSnapshot();
    List<DataFile> removedFiles = new ArrayList<>();
    List<DeleteFile> removedDeletes = new ArrayList<>();
    Set<String> replaced = new HashSet<>();
    if (base != null && segment.lastOffset() >= segment.baseOffset()) {
      for (FileScanTask task :
          plan(table, base, segment.partition(), segment.baseOffset(), segment.lastOffset())) {
        DataFile file = task.file();
        long[] range = offsetRange(table, file);
        if (range[0] < segment.baseOffset() || range[1] > segment.lastOffset()) {
          throw new SegmentFormatException(
              "Partition "
                  + segment.partition()
                  + " offsets "
                  + segment.baseOffset()
                  + ".."
                  + segment.lastOffset()
                  + " overlap file "
                  + file.location()
                  + " (offsets "
                  + range[0]
                  + ".."
                  + range[1]
                  + ") only in part; refusing to replace it");
        }
        if (replaced.add(file.location())) {
          removedFiles.add(file);
          for (DeleteFile deletes : task.deletes()) {
            if (referencesOnly(deletes, file.location())) {
              removedDeletes.add(deletes);
            }
          }
        }
      }
    }
    if (base != null) {
      writtenHere.addAll(hideEarlierAbortedRecords(table, base, segment, aborted, replaced));
    }
    if (!replaced.isEmpty()) {
      LOG.info(
          "Partition {} offsets {}..{} were committed before (a retried copy): segment {} replaces {} files",
          segment.partition(),
          segment.baseOffset(),
          segment.lastOffset(),
          segmentId,
          replaced.size());
    }
    Long baseId = base == null ? null : base.snapshotId();
    GroupCommit.Member member =
        new GroupCommit.Member() {
          @Override
          public void apply(RowDelta delta) {
            removedFiles.forEach(delta::removeRows);
            removedDeletes.forEach(delta::removeDeletes);
            segment.dataFiles().forEach(delta::addRows);
            segment.deleteFiles().forEach(delta::addDeletes);
            writtenHere.forEach(delta::addDeletes);
            delta
                .set(SUMMARY_TOPIC_ID, topicId)
                .set(SUMMARY_PARTITION, Integer.toString(segment.partition()))
                .set(SUMMARY_START_OFFSET, Long.toString(segment.baseOffset()))
                .set(SUMMARY_END_OFFSET, Long.toString(segment.lastOffset()))
                .set(SUMMARY_SEGMENT_ID, segmentId)
                .conflictDetectionFilter(
                    Expressions.equal(TopicTableLayout.PARTITION, segment.partition()))
                .validateNoConflictingDataFiles()
                .validateDeletedFiles();
            if (baseId != null) {
              delta.validateFromSnapshot(baseId);
            }
            if (!replaced.isEmpty()) {
              delta.set(SUMMARY_REPLACED_FILES, Integer.toString(replaced.size()));
            }
          }

          @Override
          public boolean owns(Snapshot snapshot) {
            Map<String, String> summary = snapshot.summary();
            return summary != null
                && segmentId.equals(summary.get(SUMMARY_SEGMENT_ID))
                && topicId.equals(summary.get(SUMMARY_TOPIC_ID))
                && Integer.toString(segment.partition()).equals(summary.get(SUMMARY_PARTITION));
          }
        };
    long snapshotId = groups.commit(table, member);
    return new Result(snapshotId, replaced.size(), attempt);
  }

  public static Iterable<FileScanTask> plan(
      Table table, Snapshot snapshot, int partition, long from, long to) {
    try (CloseableIterable<FileScanTask> tasks =
        table
            .newScan()
            .useSnapshot(snapshot.snapshotId())
            .filter(
                Expressions.and(
                    Expressions.equal(TopicTableLayout.PARTITION, partition),
                    Expressions.greaterThanOrEqual(TopicTableLayout.OFFSET, from),
                    Expressions.lessThanOrEqual(TopicTableLayout.OFFSET, to)))
            .ignoreResiduals()
            .includeColumnStats()
            .planFiles()) {
      List<FileScanTask> out = new ArrayList<>();
      tasks.forEach(out::add);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {lowest, highest} offset in a data file, from its column bounds (the whole range when it has
   * none).
   */
  public static long[] offsetRange(Table table, DataFile file) {
    int offsetId = table.schema().findField(TopicTableLayout.OFFSET).fieldId();
    Map<Integer, ByteBuffer> lower = file.lowerBounds();
    Map<Integer, ByteBuffer> upper = file.upperBounds();
    if (lower == null
        || upper == null
        || !lower.containsKey(offsetId)
        || !upper.containsKey(offsetId)) {
      return new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
    }
    long lo = Conversions.fromByteBuffer(Types.LongType.get(), lower.get(offsetId));
    long hi = Conversions.fromByteBuffer(Types.LongType.get(), upper.get(offsetId));
    return new long[] {lo, hi};
  }

  public static boolean referencesOnly(DeleteFile deletes, String location) {
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    if (deletes.lowerBounds() == null || deletes.upperBounds() == null) {
      return false;
    }
    ByteBuffer lo = deletes.lowerBounds().get(pathId);
    ByteBuffer hi = deletes.upperBounds().get(pathId);
    if (lo == null || hi == null) {
      return false;
    }
    String lower = Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), lo).toString();
    String upper = Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), hi).toString();
    return lower.equals(location) && upper.equals(location);
  }

  /** Position deletes for records before this segment that belong to transactions it aborts. */
  private static List<DeleteFile> hideEarlierAbortedRecords(
      Table table,
      Snapshot base,
      WrittenSegment segment,
      List<AbortedTransaction> aborted,
      Set<String> replaced) {
    List<RowRange> ranges = new ArrayList<>();
    Schema projection =
        table.schema().select(TopicTableLayout.OFFSET, TopicTableLayout.PRODUCER_ID);
    for (AbortedTransaction txn : aborted) {
      if (txn.firstOffset() >= segment.baseOffset()) {
        continue;
      }
      long to = Math.min(txn.lastOffset(), segment.baseOffset() - 1);
      for (FileScanTask task : plan(table, base, segment.partition(), txn.firstOffset(), to)) {
        if (replaced.contains(task.file().location())) {
          continue;
        }
        collectRows(table, task, projection, txn, to, ranges);
      }
    }
    if (ranges.isEmpty()) {
      return List.of();
    }
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, segment.partition(), 1)
            .format(FileFormat.PARQUET)
            .operationId("aborts-" + java.util.UUID.randomUUID())
            .build();
    List<DeleteFile> deletes =
        PositionDeletes.write(
            table,
            new GenericFileWriterFactory.Builder(table)
                .deleteFileFormat(FileFormat.PARQUET)
                .build(),
            files,
            ranges,
            location -> {});
    LOG.info(
        "Hid {} records of partition {} before offset {} that belong to transactions aborted in the segment",
        ranges.stream().mapToLong(RowRange::count).sum(),
        segment.partition(),
        segment.baseOffset());
    return deletes;
  }

  private static void collectRows(
      Table table,
      FileScanTask task,
      Schema projection,
      AbortedTransaction txn,
      long to,
      List<RowRange> out) {
    DataFile file = task.file();
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(projection)
            .createReaderFunc(schema -> GenericParquetReaders.buildReader(projection, schema))
            .build()) {
      long position = 0;
      long runStart = -1;
      for (Record row : rows) {
        Record kafka = (Record) row.get(0); // projected: offset, producer_id
        long offset = (Long) kafka.get(0);
        boolean hit =
            offset >= txn.firstOffset() && offset <= to && (Long) kafka.get(1) == txn.producerId();
        if (hit && runStart < 0) {
          runStart = position;
        } else if (!hit && runStart >= 0) {
          out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
          runStart = -1;
        }
        position++;
      }
      if (runStart >= 0) {
        out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Reading " + file.location() + " failed", e);
    }
  }

  private static void deleteQuietly(Table table, List<DeleteFile> files) {
    for (DeleteFile f : files) {
      try {
        table.io().deleteFile(f.location());
      } catch (RuntimeException e) {
        LOG.debug("Could not delete {} of a failed commit attempt", f.location(), e);
      }
    }
  }
}
