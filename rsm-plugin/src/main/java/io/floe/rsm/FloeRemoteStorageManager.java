package io.floe.rsm;

import io.floe.rsm.metrics.FloeRsmMetrics;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * The Floe RemoteStorageManager a broker loads ({@code
 * remote.log.storage.manager.class.name=io.floe.rsm.FloeRemoteStorageManager}): tiers each rolled
 * segment into its topic's Iceberg table and serves it back, through {@link
 * IcebergRemoteStorageManager}, which does the work.
 *
 * <p>This class only runs that work with the plugin's class loader as the thread context class
 * loader: every call, and every read of a fetched segment's stream (the broker reads it later, on
 * its own threads). Iceberg and the AWS SDK resolve classes through the context class loader, and
 * Kafka may load the plugin in a class loader of its own ({@code
 * remote.log.storage.manager.class.path}). Uses only the RSM API that is stable from Kafka 3.9 to
 * 4.4.
 */
public class FloeRemoteStorageManager implements RemoteStorageManager {
  private final RemoteStorageManager delegate;
  private final ClassLoader pluginLoader;

  public FloeRemoteStorageManager() {
    this(new IcebergRemoteStorageManager(), FloeRemoteStorageManager.class.getClassLoader());
  }

  FloeRemoteStorageManager(RemoteStorageManager delegate, ClassLoader pluginLoader) {
    this.delegate = delegate;
    this.pluginLoader = pluginLoader;
  }

  /** The metrics of this instance (also registered in JMX); null until configured. */
  public FloeRsmMetrics metrics() {
    return delegate instanceof IcebergRemoteStorageManager iceberg ? iceberg.metrics() : null;
  }

  /** Whether this broker's Kafka has RetriableRemoteStorageException (4.3+). */
  static boolean hasRetriableException() {
    return ErrorMapper.hasRetriableException();
  }

  @Override
  public void configure(Map<String, ?> configs) {
    withPluginLoader(
        () -> {
          delegate.configure(configs);
          return null;
        });
  }

  @Override
  public Optional<CustomMetadata> copyLogSegmentData(
      RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
    return withPluginLoader(() -> delegate.copyLogSegmentData(metadata, data));
  }

  @Override
  public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
      throws RemoteStorageException {
    return new PluginLoaderStream(
        withPluginLoader(() -> delegate.fetchLogSegment(metadata, startPosition)));
  }

  @Override
  public InputStream fetchLogSegment(
      RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
      throws RemoteStorageException {
    return new PluginLoaderStream(
        withPluginLoader(() -> delegate.fetchLogSegment(metadata, startPosition, endPosition)));
  }

  @Override
  public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
      throws RemoteStorageException {
    return withPluginLoader(() -> delegate.fetchIndex(metadata, indexType));
  }

  @Override
  public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata)
      throws RemoteStorageException {
    withPluginLoader(
        () -> {
          delegate.deleteLogSegmentData(metadata);
          return null;
        });
  }

  @Override
  public void close() {
    try {
      withPluginLoader(
          () -> {
            delegate.close();
            return null;
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the plugin's own delegate never throws it
    }
  }

  private <T, E extends Exception> T withPluginLoader(StorageAction<T, E> action) throws E {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(pluginLoader);
    try {
      return action.execute();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** A call of the delegate. */
  @FunctionalInterface
  interface StorageAction<T, E extends Exception> {
    T execute() throws E;
  }

  /**
   * A fetched segment's stream whose reads, skips and close run with the plugin's loader (reads
   * open Parquet files through the table's FileIO).
   */
  private final class PluginLoaderStream extends FilterInputStream {
    PluginLoaderStream(InputStream source) {
      super(source);
    }

    @Override
    public int read() throws IOException {
      return withPluginLoader(() -> in.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return withPluginLoader(() -> in.read(b, off, len));
    }

    @Override
    public long skip(long n) throws IOException {
      return withPluginLoader(() -> in.skip(n));
    }

    @Override
    public int available() throws IOException {
      return withPluginLoader(() -> in.available());
    }

    @Override
    public void close() throws IOException {
      withPluginLoader(
          () -> {
            in.close();
            return null;
          });
    }
  }
}
