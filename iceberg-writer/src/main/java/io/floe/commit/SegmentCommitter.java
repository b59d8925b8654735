package io.floe.commit;

import io.floe.copy.AbortedTransaction;
import io.floe.copy.Leftovers;
import io.floe.copy.PositionDeletes;
import io.floe.copy.RowRange;
import io.floe.copy.WrittenSegment;
import io.floe.layout.ManifestFilesCache;
import io.floe.layout.SegmentSummary;
import io.floe.layout.WithoutHadoopDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.Tasks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Commits a written segment into its table. In the same commit it hides, with position deletes
 * named after the segment, the rows inside the segment of every other copy of its offsets (an
 * earlier attempt Kafka retried under a new segment id, another replica's segments after a leader
 * change, a demoted leader's late copy), so each offset stays in the table once; and it hides the
 * earlier-segment records of transactions this segment's markers abort. {@link CommitPlanner}
 * decides which, this class writes the delete files and commits. Concurrent commits into one table
 * share one snapshot (see {@link GroupCommit}). Conflicts with concurrent writers are retried with
 * exponential backoff, planning again against the new table state each time.
 */
public final class SegmentCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentCommitter.class);

  private final int maxAttempts;
  private final long minBackoffMs;
  private final long maxBackoffMs;
  private final GroupCommit groups = new GroupCommit();
  private final ManifestFilesCache manifests =
      new ManifestFilesCache(ManifestFilesCache.DEFAULT_MAX_FILES);

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
  public record Result(long snapshotId, int overlappedDataFiles, int attempts) {

    /** What committing a segment with no record does: nothing. */
    public static final Result NOTHING = new Result(-1, 0, 0);
  }

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
              Leftovers.delete(
                  table.io(),
                  previousAttemptDeletes.stream().map(DeleteFile::location).toList(),
                  Level.DEBUG);
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
      // instance per topic, current as of this process's last commit): a stale view only costs a
      // retry, since validation refuses any file added to the partition since that base.
      table.refresh();
    }
    Snapshot base = table.currentSnapshot();
    try {
      return attemptFrom(base, table, segment, topicId, segmentId, aborted, writtenHere, attempt);
    } catch (IllegalArgumentException | NotFoundException e) {
      throw retriableIfExpired(table, base, e);
    }
  }

  /**
   * A snapshot expiry (Floe's own, or an engine's) that removed the snapshot an attempt planned
   * against makes Iceberg refuse the commit ("not an ancestor") or the plan (its manifest list is
   * gone): the attempt plans again against the current table, as after a lost race.
   */
  private static RuntimeException retriableIfExpired(
      Table table, Snapshot base, RuntimeException failure) {
    if (base == null) {
      return failure;
    }
    try {
      table.refresh();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      return failure;
    }
    if (table.snapshot(base.snapshotId()) != null) {
      return failure;
    }
    return new ValidationException(
        failure,
        "Snapshot %s of %s that the commit planned against was expired meanwhile",
        base.snapshotId(),
        table.name());
  }

  private Result attemptFrom(
      Snapshot base,
      Table table,
      WrittenSegment segment,
      String topicId,
      String segmentId,
      List<AbortedTransaction> aborted,
      List<DeleteFile> writtenHere,
      int attempt) {
    CommitPlan plan =
        base == null
            ? CommitPlan.NONE
            : new CommitPlanner(new SnapshotFiles(table, base, manifests)).plan(segment, aborted);
    writtenHere.addAll(hideRows(table, segment, segmentId, plan));
    int overlapped = plan.overlappedFiles();
    Long baseId = base == null ? null : base.snapshotId();
    SegmentSummary.Segment summary =
        new SegmentSummary.Segment(
            topicId,
            segment.partition(),
            segment.baseOffset(),
            segment.lastOffset(),
            segmentId,
            overlapped,
            rows(plan.overlappedRows()));
    GroupCommit.Member member =
        new GroupCommit.Member(
            summary,
            baseId,
            plan.referencedFiles(),
            delta -> {
              segment.dataFiles().forEach(delta::addRows);
              segment.deleteFiles().forEach(delta::addDeletes);
              writtenHere.forEach(delta::addDeletes);
            });
    long snapshotId = groups.commit(table, member);
    return new Result(snapshotId, overlapped, attempt);
  }

  /**
   * Takes a deleted segment's files out of the table as {@link SegmentRemoval#remove} does, tried
   * again with the same backoff as copies when a concurrent commit wins the race (the brokers that
   * lead the table's other partitions delete their segments into it at the same time): each attempt
   * refreshes the table and plans again, so it never removes what another commit already removed.
   */
  public Set<String> remove(
      Table table, SegmentRemoval.Target segment, Set<String> files, boolean restoreHidden) {
    AtomicReference<Set<String>> removed = new AtomicReference<>();
    Tasks.foreach(table)
        .retry(maxAttempts - 1)
        .exponentialBackoff(minBackoffMs, maxBackoffMs, 10 * 60_000L, 2.0)
        .onlyRetryOn(CommitFailedException.class, ValidationException.class)
        .run(t -> removed.set(SegmentRemoval.remove(t, segment, files, restoreHidden)));
    return removed.get();
  }

  /**
   * Position deletes for the rows the plan hides: records of earlier segments in transactions this
   * segment aborts, and, in delete files of their own that {@link OverlapDeletes} names after this
   * segment, the rows inside this segment of other copies of its offsets.
   */
  private static List<DeleteFile> hideRows(
      Table table, WrittenSegment segment, String segmentId, CommitPlan plan) {
    List<DeleteFile> deletes = new ArrayList<>();
    if (!plan.abortedRows().isEmpty()) {
      deletes.addAll(
          writeDeletes(table, segment, "aborts-" + UUID.randomUUID(), plan.abortedRows()));
      LOG.info(
          "Hid {} records of partition {} before offset {} that belong to transactions aborted in the segment",
          rows(plan.abortedRows()),
          segment.partition(),
          segment.baseOffset());
    }
    if (!plan.overlappedRows().isEmpty()) {
      deletes.addAll(
          writeDeletes(
              table, segment, OverlapDeletes.operationId(segmentId), plan.overlappedRows()));
      LOG.info(
          "Partition {} offsets {}..{} were tiered before in {} file(s) (an earlier attempt, another"
              + " replica's segments or a demoted leader's copy): {} of their rows are hidden, the"
              + " table keeps these offsets from segment {}",
          segment.partition(),
          segment.baseOffset(),
          segment.lastOffset(),
          plan.overlappedFiles(),
          rows(plan.overlappedRows()),
          segmentId);
    }
    return deletes;
  }

  private static List<DeleteFile> writeDeletes(
      Table table, WrittenSegment segment, String operationId, List<RowRange> rows) {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, segment.partition(), 1)
            .format(FileFormat.PARQUET)
            .operationId(operationId)
            .build();
    return PositionDeletes.write(
        table,
        WithoutHadoopDefaults.parquet(table, table.schema(), null, null),
        files,
        rows,
        location -> {});
  }

  private static long rows(List<RowRange> ranges) {
    return ranges.stream().mapToLong(RowRange::count).sum();
  }
}
