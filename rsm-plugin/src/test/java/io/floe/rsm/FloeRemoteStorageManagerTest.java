package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The class-loader decorator around a delegate that records the context class loader of each call
 * (no catalog involved).
 */
class FloeRemoteStorageManagerTest {
  private final ClassLoader pluginLoader = new ClassLoader(getClass().getClassLoader()) {};
  private final ClassLoader brokerLoader = new ClassLoader(getClass().getClassLoader()) {};
  private final Recorder delegate = new Recorder();
  private final FloeRemoteStorageManager rsm = new FloeRemoteStorageManager(delegate, pluginLoader);
  private final RemoteLogSegmentMetadata metadata =
      new RemoteLogSegmentMetadata(
          new RemoteLogSegmentId(
              new TopicIdPartition(Uuid.randomUuid(), new TopicPartition("payments", 0)),
              Uuid.randomUuid()),
          0,
          9,
          0,
          1,
          0,
          100,
          Map.of(0, 0L));
  private ClassLoader original;

  @BeforeEach
  void runAsTheBroker() {
    original = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(brokerLoader);
  }

  @AfterEach
  void restore() {
    Thread.currentThread().setContextClassLoader(original);
  }

  @Test
  void everyCallRunsWithThePluginLoaderAndRestoresTheCallers() throws Exception {
    LogSegmentData data =
        new LogSegmentData(
            Path.of("0.log"),
            Path.of("0.index"),
            Path.of("0.timeindex"),
            Optional.empty(),
            Path.of("0.snapshot"),
            ByteBuffer.allocate(0));
    rsm.configure(Map.of());
    rsm.copyLogSegmentData(metadata, data);
    rsm.fetchLogSegment(metadata, 0);
    rsm.fetchLogSegment(metadata, 0, 10);
    rsm.fetchIndex(metadata, RemoteStorageManager.IndexType.OFFSET);
    rsm.deleteLogSegmentData(metadata);
    rsm.close();

    assertThat(delegate.calls)
        .containsExactly(
            "configure", "copy", "fetch", "fetch-range", "fetchIndex", "delete", "close");
    assertThat(delegate.loaders).hasSize(7).containsOnly(pluginLoader);
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(brokerLoader);
  }

  @Test
  void theCallersLoaderIsRestoredWhenTheCallThrows() {
    RemoteStorageException failure = new RemoteStorageException("store down");
    delegate.failure = failure;
    assertThatThrownBy(() -> rsm.deleteLogSegmentData(metadata)).isSameAs(failure);
    assertThat(delegate.loaders).containsExactly(pluginLoader);
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(brokerLoader);

    IllegalStateException unchecked = new IllegalStateException("bad");
    delegate.failure = unchecked;
    assertThatThrownBy(() -> rsm.configure(Map.of())).isSameAs(unchecked);
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(brokerLoader);
  }

  @Test
  void aFetchedStreamIsReadAndClosedWithThePluginLoaderOnAnyThread() throws Exception {
    InputStream in = rsm.fetchLogSegment(metadata, 0);
    delegate.loaders.clear();
    ClassLoader readerLoader = new ClassLoader(getClass().getClassLoader()) {};
    CompletableFuture<ClassLoader> after = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                assertThat(in.read()).isEqualTo(1);
                assertThat(in.read(new byte[2], 0, 2)).isEqualTo(2);
                assertThat(in.skip(1)).isEqualTo(1);
                assertThat(in.available()).isEqualTo(1);
                in.close();
                after.complete(Thread.currentThread().getContextClassLoader());
              } catch (Throwable t) {
                after.completeExceptionally(t);
              }
            });
    reader.setContextClassLoader(readerLoader);
    reader.start();
    assertThat(after.get()).isSameAs(readerLoader);
    assertThat(delegate.streamCalls).containsExactly("read", "read", "skip", "available", "close");
    assertThat(delegate.loaders).hasSize(5).containsOnly(pluginLoader);
  }

  @Test
  void aFailedReadRestoresTheReadersLoader() throws Exception {
    delegate.failReads = true;
    InputStream in = rsm.fetchLogSegment(metadata, 0, 3);
    assertThatThrownBy(() -> in.read(new byte[4])).isInstanceOf(IOException.class);
    assertThat(delegate.loaders.get(delegate.loaders.size() - 1)).isSameAs(pluginLoader);
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(brokerLoader);
  }

  @Test
  void noMetricsBeforeConfigure() {
    try (FloeRemoteStorageManager unconfigured = new FloeRemoteStorageManager()) {
      assertThat(unconfigured.metrics()).isNull();
    }
  }

  /** Records each call, and the context class loader it ran with; fails when told to. */
  private static final class Recorder implements RemoteStorageManager {
    final List<String> calls = new ArrayList<>();
    final List<String> streamCalls = new ArrayList<>();
    final List<ClassLoader> loaders = new ArrayList<>();
    Exception failure;
    boolean failReads;

    private void called(String call) throws RemoteStorageException {
      calls.add(call);
      loaders.add(Thread.currentThread().getContextClassLoader());
      if (failure instanceof RemoteStorageException checked) {
        throw checked;
      }
      if (failure instanceof RuntimeException unchecked) {
        throw unchecked;
      }
    }

    private void unchecked(String call) {
      try {
        called(call);
      } catch (RemoteStorageException e) {
        throw new AssertionError(e);
      }
    }

    private InputStream stream() {
      return new InputStream() {
        private int next = 1;

        private void record(String call) {
          streamCalls.add(call);
          loaders.add(Thread.currentThread().getContextClassLoader());
        }

        @Override
        public int read() throws IOException {
          return read(new byte[1], 0, 1) < 0 ? -1 : next - 1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          record("read");
          if (failReads) {
            throw new IOException("read failed");
          }
          for (int i = 0; i < len; i++) {
            b[off + i] = (byte) next++;
          }
          return len;
        }

        @Override
        public long skip(long n) {
          record("skip");
          next += (int) n;
          return n;
        }

        @Override
        public int available() {
          record("available");
          return 1;
        }

        @Override
        public void close() {
          record("close");
        }
      };
    }

    @Override
    public void configure(Map<String, ?> configs) {
      unchecked("configure");
    }

    @Override
    public Optional<CustomMetadata> copyLogSegmentData(
        RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
      called("copy");
      return Optional.empty();
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
        throws RemoteStorageException {
      called("fetch");
      return stream();
    }

    @Override
    public InputStream fetchLogSegment(
        RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
        throws RemoteStorageException {
      called("fetch-range");
      return stream();
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
        throws RemoteStorageException {
      called("fetchIndex");
      return new ByteArrayInputStream(new byte[0]);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata)
        throws RemoteStorageException {
      called("delete");
    }

    @Override
    public void close() {
      unchecked("close");
    }
  }
}
