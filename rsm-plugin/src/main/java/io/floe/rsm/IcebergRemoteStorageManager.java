package io.floe.rsm;

import io.floe.fetch.StoredSegment;
import io.floe.maintenance.SnapshotExpiry;
import io.floe.maintenance.TableMaintenance;
import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments.CopyResult;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work behind {@link FloeRemoteStorageManager}: tiers each rolled segment into its topic's
 * Iceberg table and serves it back as re-encoded record batches with indexes that match the served
 * byte positions, recording metrics and turning failures into the exceptions Kafka expects. Every
 * call runs within its bound ({@link BoundedCalls}).
 */
final class IcebergRemoteStorageManager implements RemoteStorageManager {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergRemoteStorageManager.class);
  private static final String OPENING =
      "opening the segment (its table in the catalog, its sidecar in storage)";

  private StorageBackend backend;
  private ErrorMapper errors;
  private FloeRsmMetrics metrics;
  private BoundedCalls calls;

  @Override
  public void configure(Map<String, ?> configs) {
    StorageBackend started = StorageBackend.start(configs);
    close();
    FloeRsmConfig config = started.config();
    this.metrics = new FloeRsmMetrics(config.brokerId());
    metrics.watchFetchCache(started.fetchCache()::stats);
    metrics.watchIdleReaders(started::idleReaders);
    this.errors = new ErrorMapper(started.redactor());
    this.calls =
        new BoundedCalls(
            config.operationTimeoutMs(),
            config.copyTimeoutMs(),
            started.redactor()::describe,
            config.brokerId());
    this.backend = started;
    FloeRsmMetrics recorded = metrics;
    started.startSnapshotExpiry(
        new TableMaintenance.Listener() {
          @Override
          public void expired(SnapshotExpiry.Outcome outcome) {
            recorded.recordExpiry(outcome);
          }

          @Override
          public void failed(TableIdentifier table, RuntimeException cause) {
            recorded.recordExpiryError();
            LOG.warn(
                "Snapshot expiry of {} failed, tried again in {} ms: {}",
                table,
                config.snapshotExpiryIntervalMs(),
                started.redactor().describe(cause));
          }
        });
  }

  /** The metrics of this instance (also registered in JMX); null until configured. */
  FloeRsmMetrics metrics() {
    return metrics;
  }

  @Override
  public Optional<CustomMetadata> copyLogSegmentData(
      RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
    ensureConfigured();
    SegmentKey key = SegmentFilesAdapter.key(metadata);
    long start = System.nanoTime();
    try {
      SegmentFiles files = SegmentFilesAdapter.files(metadata, data);
      CopyResult result =
          calls.copy(
              key.segmentId(),
              "Copy of segment " + ErrorMapper.describe(metadata),
              steps -> backend.copy(key, files, steps));
      metrics.recordCopy(key.topic(), result, System.nanoTime() - start);
      return Optional.empty();
    } catch (CallCancelledException e) {
      metrics.recordCopyCancelled();
      throw errors.copyCancelled(metadata, e);
    } catch (Exception e) {
      recordIfTimeout(e);
      metrics.recordCopyError();
      throw errors.copyFailed(metadata, e);
    } finally {
      metrics.recordCall(System.nanoTime() - start);
    }
  }

  @Override
  public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
      throws RemoteStorageException {
    return fetch(metadata, startPosition, -1);
  }

  @Override
  public InputStream fetchLogSegment(
      RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
      throws RemoteStorageException {
    if (endPosition < startPosition) {
      throw new IllegalArgumentException(
          "End position " + endPosition + " is before start position " + startPosition);
    }
    return fetch(metadata, startPosition, endPosition);
  }

  /** Fetches from {@code startPosition} to the end, or to {@code endPosition} unless it is -1. */
  private InputStream fetch(RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
      throws RemoteStorageException {
    ensureConfigured();
    if (startPosition < 0) {
      throw new IllegalArgumentException("Start position " + startPosition + " is negative");
    }
    long start = System.nanoTime();
    String call = "Fetch of segment " + ErrorMapper.describe(metadata);
    try {
      InputStream source =
          calls.call(
              null,
              call,
              OPENING + " and positioning its reader",
              steps ->
                  endPosition < 0
                      ? open(metadata).fetch(startPosition)
                      : open(metadata).fetch(startPosition, endPosition));
      metrics.recordFetch(System.nanoTime() - start);
      return Streams.segment(source, metrics::recordFetchBytes);
    } catch (CallCancelledException e) {
      throw errors.cancelled(call, e);
    } catch (Exception e) {
      recordIfTimeout(e);
      metrics.recordFetchError();
      throw errors.fetchFailed(metadata, startPosition, e);
    } finally {
      metrics.recordCall(System.nanoTime() - start);
    }
  }

  @Override
  public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
      throws RemoteStorageException {
    ensureConfigured();
    long start = System.nanoTime();
    String call =
        "Fetch of the " + indexType + " index of segment " + ErrorMapper.describe(metadata);
    try {
      StoredSegment segment = calls.call(null, call, OPENING, steps -> open(metadata));
      Optional<ByteBuffer> index =
          switch (indexType) {
            case OFFSET -> Optional.of(segment.offsetIndex());
            case TIMESTAMP -> Optional.of(segment.timeIndex());
            case TRANSACTION -> segment.transactionIndex();
            case PRODUCER_SNAPSHOT -> segment.producerSnapshot();
            case LEADER_EPOCH -> segment.leaderEpochCheckpoint();
          };
      metrics.recordIndexFetch();
      if (index.isEmpty()) {
        throw errors.noIndex(metadata, indexType);
      }
      return Streams.of(index.get());
    } catch (RemoteResourceNotFoundException e) {
      throw e; // a segment or index that is not stored: an answer, not a failure
    } catch (CallCancelledException e) {
      throw errors.cancelled(call, e);
    } catch (Exception e) {
      recordIfTimeout(e);
      metrics.recordFetchError();
      throw errors.indexFetchFailed(metadata, indexType, e);
    } finally {
      metrics.recordCall(System.nanoTime() - start);
    }
  }

  private StoredSegment open(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
    SegmentKey key = SegmentFilesAdapter.key(metadata);
    try {
      return backend.open(key);
    } catch (RuntimeException e) {
      throw errors.openFailed(metadata, e);
    }
  }

  /**
   * Runs after any earlier call on the segment still running has ended: Kafka deletes a copy it
   * gave up on, and the delete must not interleave with that copy's late commit.
   */
  @Override
  public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata)
      throws RemoteStorageException {
    ensureConfigured();
    SegmentKey key = SegmentFilesAdapter.key(metadata);
    long start = System.nanoTime();
    String call = "Delete of segment " + ErrorMapper.describe(metadata);
    try {
      calls.call(
          key.segmentId(),
          call,
          "deleting the segment (its sidecar and files in storage, a commit)",
          steps -> {
            backend.delete(key, SegmentFilesAdapter.deleteReason(metadata));
            return null;
          });
      metrics.recordDelete(System.nanoTime() - start);
    } catch (CallCancelledException e) {
      throw errors.cancelled(call, e);
    } catch (Exception e) {
      recordIfTimeout(e);
      metrics.recordDeleteError();
      throw errors.deleteFailed(metadata, e);
    } finally {
      metrics.recordCall(System.nanoTime() - start);
    }
  }

  private void recordIfTimeout(Exception e) {
    if (e instanceof CallTimeoutException) {
      metrics.recordTimeout();
    }
  }

  /** Lets running work end (bounded) before the catalog it uses is closed. */
  @Override
  public void close() {
    if (calls != null) {
      calls.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  private void ensureConfigured() {
    if (backend == null) {
      throw new IllegalStateException("FloeRemoteStorageManager is not configured");
    }
  }
}
