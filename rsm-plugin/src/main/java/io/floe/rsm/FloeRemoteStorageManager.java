package io.floe.rsm;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.catalog.CatalogDefaults;
import io.floe.commit.SegmentCommitter;
import io.floe.copy.SegmentFormatException;
import io.floe.fetch.StoredSegment;
import io.floe.rsm.metrics.FloeRsmMetrics;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.SegmentNotFoundException;
import io.floe.tier.TieredSegments;
import io.floe.tier.TopicTables;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Floe RemoteStorageManager: tiers each rolled segment into its topic's Iceberg table and
 * serves it back as re-encoded record batches with indexes that match the served byte positions.
 *
 * <p>Uses only the RSM API that is stable from Kafka 3.9 to 4.4. Every call runs with the plugin's
 * class loader as the thread context class loader, since Iceberg and the AWS SDK resolve classes
 * through it and Kafka may load the plugin in its own class loader ({@code
 * remote.log.storage.manager.class.path}).
 */
public class FloeRemoteStorageManager implements RemoteStorageManager {
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteStorageManager.class);
  private static final String RETRIABLE_CLASS =
      "org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException";
  private static final Constructor<? extends RemoteStorageException> RETRIABLE =
      retriableConstructor();

  private final ClassLoader pluginLoader = FloeRemoteStorageManager.class.getClassLoader();

  private FloeRsmConfig config;
  private Redactor redactor = new Redactor(java.util.List.of());
  private TableCachingCatalog catalog;
  private TieredSegments segments;
  private Cache<String, StoredSegment> openSegments;
  private FloeRsmMetrics metrics;
  private boolean removeRows;

  @Override
  public void configure(Map<String, ?> configs) {
    withPluginLoader(
        () -> {
          doConfigure(configs);
          return null;
        });
  }

  private void doConfigure(Map<String, ?> configs) {
    FloeRsmConfig cfg = new FloeRsmConfig(configs);
    Redactor red = new Redactor(cfg.sensitiveValues());
    LOG.info("Floe RSM configuration (credentials hidden): {}", cfg.effectiveConfig());
    for (String key : cfg.unknownKeys()) {
      LOG.warn(
          "Unknown Floe RSM configuration key '{}' is ignored (Iceberg catalog keys start with '{}')",
          key,
          FloeRsmConfig.ICEBERG_PREFIX);
    }
    Catalog raw;
    try {
      raw =
          CatalogUtil.buildIcebergCatalog(
              cfg.catalogName(), CatalogDefaults.apply(cfg.catalogProperties()), hadoopConf());
    } catch (RuntimeException | LinkageError e) {
      ConfigException failure =
          new ConfigException(
              "Could not initialize Iceberg catalog "
                  + cfg.catalogDescription()
                  + ": "
                  + red.describe(e));
      failure.initCause(red.sanitize(e));
      throw failure;
    }
    try {
      new StorageProbe(cfg, red, hadoopConf()).run();
    } catch (ConfigException e) {
      closeCatalog(raw, cfg, red);
      throw e;
    }
    this.config = cfg;
    this.redactor = red;
    this.catalog = new TableCachingCatalog(raw, cfg.tableCacheExpirationMs());
    this.segments =
        new TieredSegments(
            new TopicTables(catalog, cfg.tableOptions()),
            new SegmentCommitter(
                cfg.commitMaxAttempts(), cfg.commitBackoffMinMs(), cfg.commitBackoffMaxMs()),
            cfg.indexIntervalBytes());
    // An opened segment keeps the readers of finished fetches for the next fetch that continues
    // them: release
    // them when it leaves the cache (synchronously, so close() leaves nothing open).
    this.openSegments =
        Caffeine.newBuilder()
            .maximumSize(cfg.segmentCacheSize())
            .executor(Runnable::run)
            .<String, StoredSegment>removalListener((id, segment, cause) -> closeQuietly(segment))
            .build();
    this.removeRows = cfg.retentionMode() == FloeRsmConfig.RetentionMode.DELETE;
    if (metrics != null) {
      metrics.close();
    }
    this.metrics = new FloeRsmMetrics(cfg.brokerId());
    LOG.info(
        "Floe RSM on broker {} uses Iceberg catalog {}, namespace {}, retention mode {}",
        cfg.brokerId(),
        cfg.catalogDescription(),
        cfg.namespace(),
        cfg.retentionMode());
  }

  private static void closeCatalog(Catalog raw, FloeRsmConfig cfg, Redactor red) {
    if (raw instanceof java.io.Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug(
            "Closing Iceberg catalog {} failed: {}", cfg.catalogDescription(), red.describe(e));
      }
    }
  }

  private static Object hadoopConf() {
    try {
      return new org.apache.hadoop.conf.Configuration();
    } catch (LinkageError e) {
      return null; // no Hadoop on the classpath: only catalogs that need none will work
    }
  }

  /** The metrics of this instance (also registered in JMX). */
  public FloeRsmMetrics metrics() {
    return metrics;
  }

  @Override
  public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
      RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
    ensureConfigured();
    SegmentKey key = key(metadata);
    long start = System.nanoTime();
    try {
      TieredSegments.CopyResult result =
          withPluginLoader(() -> segments.copy(key, files(metadata, data)));
      metrics.recordCopy(result, System.nanoTime() - start);
      return Optional.empty();
    } catch (SegmentFormatException | IllegalArgumentException e) {
      metrics.recordCopyError();
      String message =
          "Segment " + describe(metadata) + " cannot be tiered: " + redactor.redact(e.getMessage());
      LOG.error(message);
      throw nonRetriable(message, e);
    } catch (Exception e) {
      metrics.recordCopyError();
      String message = "Copying segment " + describe(metadata) + " failed: " + redactor.describe(e);
      LOG.warn(message);
      throw retriable(message, e);
    }
  }

  private SegmentFiles files(RemoteLogSegmentMetadata metadata, LogSegmentData data)
      throws IOException {
    long baseOffset = metadata.startOffset();
    Long fromName = baseOffsetOf(data.logSegment());
    if (fromName != null && fromName != baseOffset) {
      LOG.warn(
          "Segment file {} has base offset {}, but the broker copies it as starting at {}: using {}",
          data.logSegment().getFileName(),
          fromName,
          baseOffset,
          baseOffset);
    }
    ByteBuffer txn =
        data.transactionIndex().isPresent() ? read(data.transactionIndex().get()) : null;
    ByteBuffer epochs = data.leaderEpochIndex() == null ? null : copy(data.leaderEpochIndex());
    return new SegmentFiles(
        data.logSegment(),
        baseOffset,
        read(data.timeIndex()),
        txn,
        read(data.producerSnapshotIndex()),
        epochs);
  }

  private static Long baseOffsetOf(Path log) {
    String name = log.getFileName().toString();
    int dot = name.indexOf('.');
    try {
      return Long.parseLong(dot < 0 ? name : name.substring(0, dot));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static ByteBuffer read(Path path) throws IOException {
    if (path == null || !Files.exists(path)) {
      return null;
    }
    return ByteBuffer.wrap(Files.readAllBytes(path));
  }

  private static ByteBuffer copy(ByteBuffer buffer) {
    ByteBuffer src = buffer.duplicate();
    ByteBuffer out = ByteBuffer.allocate(src.remaining());
    out.put(src).flip();
    return out;
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
      StoredSegment segment = open(metadata);
      InputStream source = withPluginLoader(() -> segment.fetch(startPosition));
      metrics.recordFetch(System.nanoTime() - start);
      return Streams.segment(source, limit, pluginLoader, metrics::recordFetchBytes);
    } catch (RemoteStorageException e) {
      metrics.recordFetchError();
      throw e;
    } catch (Exception e) {
      metrics.recordFetchError();
      String message =
          "Fetching segment "
              + describe(metadata)
              + " from position "
              + startPosition
              + " failed: "
              + redactor.describe(e);
      LOG.warn(message);
      throw retriable(message, e);
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
        throw new RemoteResourceNotFoundException(
            "Segment " + describe(metadata) + " has no " + indexType + " index");
      }
      return Streams.of(index.get());
    } catch (RemoteStorageException e) {
      if (!(e instanceof RemoteResourceNotFoundException)) {
        metrics.recordFetchError();
      }
      throw e;
    } catch (Exception e) {
      metrics.recordFetchError();
      throw retriable(
          "Fetching the "
              + indexType
              + " index of segment "
              + describe(metadata)
              + " failed: "
              + redactor.describe(e),
          e);
    }
  }

  private StoredSegment open(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
    SegmentKey key = key(metadata);
    try {
      return withPluginLoader(() -> openSegments.get(key.segmentId(), id -> segments.open(key)));
    } catch (SegmentNotFoundException e) {
      throw new RemoteResourceNotFoundException(
          "Segment "
              + describe(metadata)
              + " is not in remote storage: "
              + redactor.redact(e.getMessage()));
    } catch (Exception e) {
      throw retriable(
          "Opening segment " + describe(metadata) + " failed: " + redactor.describe(e), e);
    }
  }

  @Override
  public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata)
      throws RemoteStorageException {
    ensureConfigured();
    SegmentKey key = key(metadata);
    openSegments.invalidate(key.segmentId());
    long start = System.nanoTime();
    try {
      withPluginLoader(
          () -> {
            segments.delete(key, removeRows);
            return null;
          });
      metrics.recordDelete(System.nanoTime() - start);
    } catch (Exception e) {
      metrics.recordDeleteError();
      String message =
          "Deleting segment " + describe(metadata) + " failed: " + redactor.describe(e);
      LOG.warn(message);
      throw retriable(message, e);
    } finally {
      openSegments.invalidate(key.segmentId());
    }
  }

  @Override
  public void close() {
    if (openSegments != null) {
      openSegments.invalidateAll();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (catalog != null) {
      try {
        withPluginLoader(
            () -> {
              catalog.close();
              return null;
            });
      } catch (Exception e) {
        LOG.warn(
            "Closing Iceberg catalog {} failed: {}",
            config.catalogDescription(),
            redactor.describe(e));
      }
    }
  }

  private void closeQuietly(StoredSegment segment) {
    if (segment == null) {
      return;
    }
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(pluginLoader);
    try {
      segment.close();
    } catch (RuntimeException e) {
      LOG.debug("Releasing the readers of a remote segment failed: {}", redactor.describe(e));
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  private void ensureConfigured() {
    if (segments == null) {
      throw new IllegalStateException("FloeRemoteStorageManager is not configured");
    }
  }

  static SegmentKey key(RemoteLogSegmentMetadata metadata) {
    TopicIdPartition tp = metadata.remoteLogSegmentId().topicIdPartition();
    return new SegmentKey(
        tp.topic(),
        tp.topicId().toString(),
        tp.partition(),
        metadata.startOffset(),
        metadata.remoteLogSegmentId().id().toString());
  }

  private static String describe(RemoteLogSegmentMetadata metadata) {
    TopicIdPartition tp = metadata.remoteLogSegmentId().topicIdPartition();
    return metadata.remoteLogSegmentId().id()
        + " of "
        + tp.topic()
        + "-"
        + tp.partition()
        + " (offsets "
        + metadata.startOffset()
        + ".."
        + metadata.endOffset()
        + ")";
  }

  private <T> T withPluginLoader(Callable<T> action) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(pluginLoader);
    try {
      return action.call();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new WrappedCheckedException(e);
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** A checked exception thrown inside {@link #withPluginLoader}; unwrapped when mapped. */
  private static final class WrappedCheckedException extends RuntimeException {
    WrappedCheckedException(Exception cause) {
      super(cause.getMessage(), cause);
    }
  }

  private RemoteStorageException nonRetriable(String message, Throwable cause) {
    return new RemoteStorageException(message, redactor.sanitize(unwrap(cause)));
  }

  private RemoteStorageException retriable(String message, Throwable cause) {
    Throwable sanitized = redactor.sanitize(unwrap(cause));
    if (RETRIABLE != null) {
      try {
        return RETRIABLE.newInstance(message, sanitized);
      } catch (ReflectiveOperationException e) {
        // fall through
      }
    }
    return new RemoteStorageException(message, sanitized);
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof WrappedCheckedException && t.getCause() != null ? t.getCause() : t;
  }

  /** RetriableRemoteStorageException exists from Kafka 4.3 on: found at run time, else null. */
  @SuppressWarnings("unchecked")
  private static Constructor<? extends RemoteStorageException> retriableConstructor() {
    try {
      Class<?> c =
          Class.forName(RETRIABLE_CLASS, false, RemoteStorageException.class.getClassLoader());
      if (!RemoteStorageException.class.isAssignableFrom(c)) {
        return null;
      }
      return (Constructor<? extends RemoteStorageException>)
          c.getConstructor(String.class, Throwable.class);
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }

  /** Whether this broker's Kafka has RetriableRemoteStorageException (4.3+). */
  static boolean hasRetriableException() {
    return RETRIABLE != null;
  }
}
