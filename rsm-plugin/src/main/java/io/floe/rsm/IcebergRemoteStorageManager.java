package io.floe.rsm;

import io.floe.fetch.StoredSegment;
import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments.CopyResult;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * The work behind {@link FloeRemoteStorageManager}: tiers each rolled segment into its topic's
 * Iceberg table and serves it back as re-encoded record batches with indexes that match the served
 * byte positions, recording metrics and turning failures into the exceptions Kafka expects.
 */
final class IcebergRemoteStorageManager implements RemoteStorageManager {
  private StorageBackend backend;
  private ErrorMapper errors;
  private FloeRsmMetrics metrics;

  @Override
  public void configure(Map<String, ?> configs) {
    StorageBackend started = StorageBackend.start(configs);
    if (metrics != null) {
      metrics.close();
    }
    this.metrics = new FloeRsmMetrics(started.config().brokerId());
    this.errors = new ErrorMapper(started.redactor());
    this.backend = started;
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
      CopyResult result = backend.copy(key, SegmentFilesAdapter.files(metadata, data));
      metrics.recordCopy(result, System.nanoTime() - start);
      return Optional.empty();
    } catch (Exception e) {
      metrics.recordCopyError();
      throw errors.copyFailed(metadata, e);
    }
  }

  @Override
  public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
      throws RemoteStorageException {
    return fetch(metadata, startPosition, Long.MAX_VALUE);
  }

  @Override
  public InputStream fetchLogSegment(
      RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
      throws RemoteStorageException {
    if (endPosition < startPosition) {
      throw new IllegalArgumentException(
          "End position " + endPosition + " is before start position " + startPosition);
    }
    return fetch(metadata, startPosition, (long) endPosition - startPosition + 1);
  }

  private InputStream fetch(RemoteLogSegmentMetadata metadata, int startPosition, long limit)
      throws RemoteStorageException {
    ensureConfigured();
    if (startPosition < 0) {
      throw new IllegalArgumentException("Start position " + startPosition + " is negative");
    }
    long start = System.nanoTime();
    try {
      InputStream source = open(metadata).fetch(startPosition);
      metrics.recordFetch(System.nanoTime() - start);
      return Streams.segment(source, limit, metrics::recordFetchBytes);
    } catch (Exception e) {
      metrics.recordFetchError();
      throw errors.fetchFailed(metadata, startPosition, e);
    }
  }

  @Override
  public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
      throws RemoteStorageException {
    ensureConfigured();
    try {
      StoredSegment segment = open(metadata);
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
    } catch (Exception e) {
      metrics.recordFetchError();
      throw errors.indexFetchFailed(metadata, indexType, e);
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

  @Override
  public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata)
      throws RemoteStorageException {
    ensureConfigured();
    SegmentKey key = SegmentFilesAdapter.key(metadata);
    long start = System.nanoTime();
    try {
      backend.delete(key, SegmentFilesAdapter.deleteReason(metadata));
      metrics.recordDelete(System.nanoTime() - start);
    } catch (Exception e) {
      metrics.recordDeleteError();
      throw errors.deleteFailed(metadata, e);
    }
  }

  @Override
  public void close() {
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
