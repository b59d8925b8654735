package io.floe.tier;

import io.floe.commit.SegmentCommitter;
import io.floe.commit.SegmentRemoval;
import io.floe.copy.AbortedTransaction;
import io.floe.copy.Leftovers;
import io.floe.copy.TransactionIndex;
import io.floe.copy.WrittenSegment;
import io.floe.fetch.FetchResources;
import io.floe.fetch.StoredSegment;
import io.floe.format.OffsetRange;
import io.floe.format.Reencoding;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.SegmentManifest;
import io.floe.manifest.SidecarObjects;
import io.floe.rows.PayloadCounts;
import io.floe.rows.TableCodecs;
import io.floe.rows.TypedValueCodec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The format bridge as one API: copy a segment into its topic table (data files, sidecar, one
 * commit), open a copied segment for fetching, and delete one. Knows nothing of brokers: the plugin
 * and tools both use it.
 */
public final class TieredSegments {
  private static final Logger LOG = LoggerFactory.getLogger(TieredSegments.class);

  private final TopicTables tables;
  private final SegmentCommitter committer;
  private final int indexIntervalBytes;
  private final Reencoding reencoding;
  private final TableCodecs codecs;
  private final FetchResources fetching;

  public TieredSegments(TopicTables tables, SegmentCommitter committer) {
    this(tables, committer, BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES);
  }

  public TieredSegments(TopicTables tables, SegmentCommitter committer, int indexIntervalBytes) {
    this(tables, committer, indexIntervalBytes, Reencoding.CURRENT);
  }

  /**
   * Copies re-encode as {@code reencoding} does (tests: segments as an earlier Floe copied them).
   */
  TieredSegments(
      TopicTables tables,
      SegmentCommitter committer,
      int indexIntervalBytes,
      Reencoding reencoding) {
    this(tables, committer, indexIntervalBytes, reencoding, TableCodecs.withoutRegistry());
  }

  /** Copies and fetches make rows with the codecs {@code codecs} gives (typed tables). */
  public TieredSegments(
      TopicTables tables, SegmentCommitter committer, int indexIntervalBytes, TableCodecs codecs) {
    this(tables, committer, indexIntervalBytes, Reencoding.CURRENT, codecs);
  }

  /** As above, fetches served with {@code fetching} (cache, read-ahead threads). */
  public TieredSegments(
      TopicTables tables,
      SegmentCommitter committer,
      int indexIntervalBytes,
      TableCodecs codecs,
      FetchResources fetching) {
    this(tables, committer, indexIntervalBytes, Reencoding.CURRENT, codecs, fetching);
  }

  /** As above, copies re-encoding as {@code reencoding} does. */
  public TieredSegments(
      TopicTables tables,
      SegmentCommitter committer,
      int indexIntervalBytes,
      Reencoding reencoding,
      TableCodecs codecs) {
    this(tables, committer, indexIntervalBytes, reencoding, codecs, FetchResources.defaults());
  }

  /** As above, all of them. */
  private TieredSegments(
      TopicTables tables,
      SegmentCommitter committer,
      int indexIntervalBytes,
      Reencoding reencoding,
      TableCodecs codecs,
      FetchResources fetching) {
    this.fetching = Objects.requireNonNull(fetching, "fetching");
    this.codecs = Objects.requireNonNull(codecs, "codecs");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.committer = Objects.requireNonNull(committer, "committer");
    this.indexIntervalBytes = indexIntervalBytes;
    this.reencoding = Objects.requireNonNull(reencoding, "reencoding");
  }

  public TopicTables tables() {
    return tables;
  }

  /** What one copy did. */
  public record CopyResult(
      String table,
      long snapshotId,
      long records,
      long hiddenRecords,
      long segmentBytes,
      long storedBytes,
      int sidecarBytes,
      int commitAttempts,
      int overlappedDataFiles,
      PayloadCounts payloads) {}

  /**
   * Copies a segment and returns once its commit is durable. On failure nothing is visible in the
   * table and the files this call wrote are removed (unless the commit outcome is unknown: then
   * they are left for a later delete of this segment id, since they may be live).
   */
  public CopyResult copy(SegmentKey key, SegmentFiles files) {
    return copy(key, files, step -> {});
  }

  /**
   * As {@link #copy(SegmentKey, SegmentFiles)}, telling {@code steps} as each step begins (on this
   * thread).
   */
  public CopyResult copy(SegmentKey key, SegmentFiles files, Consumer<CopyStep> steps) {
    long started = System.nanoTime();
    steps.accept(CopyStep.LOAD_TABLE);
    Table table = tables.forCopy(key.topic(), key.topicId());
    steps.accept(CopyStep.WRITE_DATA);
    WrittenSegment written = new EvolvingSegmentWrite(reencoding, codecs).write(table, key, files);
    String sidecarLocation = key.sidecarLocation(table.location());
    List<AbortedTransaction> aborted =
        files.transactionIndex() == null
            ? List.of()
            : TransactionIndex.parse(files.transactionIndex());
    byte[] sidecar =
        CopiedManifest.of(
                key,
                files,
                written,
                reencoding,
                TypedValueCodec.versionForTable(table.properties()),
                indexIntervalBytes)
            .toBytes();
    try {
      steps.accept(CopyStep.WRITE_SIDECAR);
      SidecarObjects.write(table.io(), sidecarLocation, sidecar);
      steps.accept(CopyStep.COMMIT);
      long committing = System.nanoTime();
      SegmentCommitter.Result result;
      if (written.isEmpty()) {
        result = SegmentCommitter.Result.NOTHING;
      } else {
        result = committer.commit(table, written, key.topicId(), key.segmentId(), aborted);
      }
      long stored = sidecar.length;
      for (DataFile f : written.dataFiles()) {
        stored += f.fileSizeInBytes();
      }
      for (DeleteFile f : written.deleteFiles()) {
        stored += f.fileSizeInBytes();
      }
      long done = System.nanoTime();
      LOG.info(
          "Copied {}-{} offsets {}..{} ({} records, {} bytes) to {} in snapshot {} ({} attempt(s),"
              + " {} ms, {} ms of it committing){}",
          key.topic(),
          key.partition(),
          written.baseOffset(),
          written.lastOffset(),
          written.records(),
          written.segmentBytes(),
          table.name(),
          result.snapshotId(),
          result.attempts(),
          TimeUnit.NANOSECONDS.toMillis(done - started),
          TimeUnit.NANOSECONDS.toMillis(done - committing),
          written.payloads().isEmpty() ? "" : "; keys and values: " + written.payloads());
      return new CopyResult(
          table.name(),
          result.snapshotId(),
          written.records(),
          written.hiddenRecords(),
          written.segmentBytes(),
          stored,
          sidecar.length,
          result.attempts(),
          result.overlappedDataFiles(),
          written.payloads());
    } catch (CommitStateUnknownException e) {
      tables.forget(key.topic(), key.topicId());
      throw e;
    } catch (RuntimeException e) {
      tables.forget(key.topic(), key.topicId());
      removeObjects(table, written, sidecarLocation);
      throw e;
    }
  }

  /** What this instance's fetches share: the segment cache, idle readers, read-ahead threads. */
  public FetchResources fetching() {
    return fetching;
  }

  /**
   * Opens a copied segment; throws {@link SegmentNotFoundException} when it is not (or no longer)
   * stored.
   */
  public StoredSegment open(SegmentKey key) {
    Table table = tables.find(key.topic(), key.topicId());
    if (table == null) {
      throw new SegmentNotFoundException(
          "No table for topic " + key.topic() + " (id " + key.topicId() + ")");
    }
    String location = key.sidecarLocation(table.location());
    byte[] bytes;
    try {
      bytes = SidecarObjects.read(table.io(), location);
    } catch (NotFoundException e) {
      throw new SegmentNotFoundException(
          "Segment " + key.segmentId() + " is not stored at " + location);
    }
    return fetching.open(table, SegmentManifest.parse(bytes), codecs);
  }

  /**
   * Deletes a segment: with {@code removeRows} its data files leave the table's current snapshot
   * (one commit, which also brings back the rows it hid in other copies if {@code reason} says
   * Kafka never finished it); without, the rows stay and only the sidecar goes. Files a failed copy
   * left behind are removed. Idempotent.
   */
  public void delete(SegmentKey key, boolean removeRows, DeleteReason reason) {
    fetching.cache().invalidate(key.segmentId());
    Table table = tables.find(key.topic(), key.topicId());
    if (table == null) {
      return;
    }
    String location = key.sidecarLocation(table.location());
    SegmentManifest manifest;
    try {
      manifest = SegmentManifest.parse(SidecarObjects.read(table.io(), location));
    } catch (NotFoundException e) {
      LOG.debug("Segment {} has no sidecar at {}: nothing to delete", key.segmentId(), location);
      return;
    }
    Set<String> files = new HashSet<>(manifest.dataFiles());
    OffsetRange range = manifest.offsets();
    Set<String> live =
        removeRows
            ? committer.remove(
                table,
                new SegmentRemoval.Target(key.topicId(), key.partition(), key.segmentId(), range),
                files,
                reason == DeleteReason.COPY_ABANDONED)
            : SegmentRemoval.live(table, key.partition(), files, range);
    files.removeAll(live);
    Leftovers.delete(table.io(), files); // never committed, or taken out of the table before
    table.io().deleteFile(location);
    LOG.info(
        "Deleted segment {} of {}-{} ({}, rows {})",
        key.segmentId(),
        key.topic(),
        key.partition(),
        reason == DeleteReason.COPY_ABANDONED ? "an unfinished copy" : "expired",
        removeRows ? "removed from the table" : "kept in the table");
  }

  private static void removeObjects(Table table, WrittenSegment written, String sidecarLocation) {
    List<String> locations = new ArrayList<>();
    written.dataFiles().forEach(f -> locations.add(f.location()));
    written.deleteFiles().forEach(f -> locations.add(f.location()));
    locations.add(sidecarLocation);
    Leftovers.delete(table.io(), locations);
  }
}
