package io.floe.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.manifest.SegmentManifest;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows read ahead on the pool: a segment of many units comes back whole and in order, rows that
 * fail to read on the pool fail the fetch thread's read, closing never waits for a unit being read
 * (which closes the rows when done), and closing a stream that reads ahead closes every data file
 * it opened.
 */
class RowsAheadTest {
  private static final String TOPIC = "ahead";
  private static final String TOPIC_ID = "DDDDDDDDDDDDDDDDDDDDDD";

  @TempDir static Path dir;
  private static TableFixture fx;
  private static Table table;
  private static SegmentManifest manifest;
  private static Path log;

  @BeforeAll
  static void copyOneSegment() throws Exception {
    SegmentGenerator generator = SegmentGenerator.seeded(17);
    for (int i = 0; i < 60; i++) {
      generator.batch(
          i % 3 == 0 ? Compression.ZSTD : Compression.NONE, TimestampType.CREATE_TIME, 100, 120);
    }
    log = generator.writeTo(dir.resolve("segment.log"));
    fx = new TableFixture(dir, Storage.LOCAL);
    SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "ahead-test");
    fx.segments.copy(key, SegmentFiles.of(log, 0));
    table = fx.table(TOPIC, TOPIC_ID);
    manifest = fx.segments.open(key).manifest();
  }

  @AfterAll
  static void close() throws Exception {
    fx.close();
  }

  @Test
  void aSegmentOfManyUnitsComesBackWholeAndInOrder() throws IOException {
    long records =
        manifest.directory().entries().stream().mapToLong(e -> e.header().recordCount()).sum();
    assertThat(records / RowsAhead.UNIT_RECORDS).as("units of the segment").isGreaterThan(10);
    byte[] served;
    try (InputStream in = stream(table.io(), 0)) {
      served = in.readAllBytes();
    }
    Batches.assertSameBatches(Batches.read(log), Batches.read(new ByteArrayInputStream(served)));
  }

  @Test
  void aSourceThatFailsOnThePoolFailsTheFetchThreadsRead() throws Exception {
    Source source = new Source(10, null);
    try (RowsAhead rows = new RowsAhead(source, manifest.directory(), 0, ReadAheadPool.shared())) {
      // the first unit is the pool's once a pool thread has started on it
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> source.readers.contains("floe-fetch-rows"));
      assertThatThrownBy(
              () -> {
                while (rows.next() != null) {
                  // read on until the failure
                }
              })
          .isInstanceOf(IOException.class)
          .hasMessage("storage went away");
      assertThat(source.readers).as("threads that read the source").containsOnly("floe-fetch-rows");
    }
    assertThat(source.closed).isTrue();
  }

  @Test
  void withThePoolOffTheFetchThreadReadsEveryRow() throws Exception {
    Source source = new Source(Integer.MAX_VALUE, null);
    int rows = 0;
    try (RowsAhead ahead = new RowsAhead(source, manifest.directory(), 0, ReadAheadPool.off())) {
      while (ahead.next() != null) {
        rows++;
      }
    }
    assertThat(rows).isEqualTo(6000);
    assertThat(source.readers)
        .containsOnly(Thread.currentThread().getName().replaceAll("-[0-9]+$", ""));
  }

  @Test
  @Timeout(30) // a close that waited for the blocked unit would hang here
  void closingDoesNotWaitForAUnitBeingReadWhichClosesTheSourceWhenDone() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Source source = new Source(Integer.MAX_VALUE, release);
    RowsAhead rows = new RowsAhead(source, manifest.directory(), 0, ReadAheadPool.shared());
    source.blocked.await();
    rows.close();
    assertThat(source.closed).as("closed under a read").isFalse();
    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> source.closed);
  }

  @Test
  void closingAStreamThatReadsAheadClosesEveryDataFile() throws IOException {
    Tracking io = new Tracking(table.io());
    InputStream in = stream(io, 0);
    assertThat(in.read(new byte[4096])).isPositive();
    assertThat(io.opened.get()).isPositive();
    in.close();
    assertThat(io.open.get()).as("data file streams left open").isZero();
  }

  private static ReencodingInputStream stream(FileIO io, long position) {
    return new ReencodingInputStream(
        io,
        table.schema(),
        manifest.dataFiles(),
        manifest.directory(),
        manifest.reencoding(),
        position);
  }

  /**
   * Rows that fail after {@code failAfter} of them; with {@code release}, the first read on a pool
   * thread blocks until it is counted down.
   */
  private static final class Source implements RowSource {
    final int failAfter;
    final CountDownLatch release;
    final CountDownLatch blocked = new CountDownLatch(1);
    final Set<String> readers = ConcurrentHashMap.newKeySet();
    volatile boolean closed;
    private long offset;

    Source(int failAfter, CountDownLatch release) {
      this.failAfter = failAfter;
      this.release = release;
    }

    @Override
    public Record next() throws IOException {
      String thread = Thread.currentThread().getName();
      readers.add(thread.replaceAll("-[0-9]+$", ""));
      if (release != null && thread.startsWith("floe-fetch-rows")) {
        blocked.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          throw new InterruptedIOException();
        }
      }
      if (offset == failAfter) {
        throw new IOException("storage went away");
      }
      GenericRecord row = GenericRecord.create(table.schema());
      row.setField("value", ByteBuffer.wrap(new byte[] {(byte) offset++}));
      return row;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** Counts the data file streams open. */
  private static final class Tracking implements FileIO {
    final FileIO delegate;
    final AtomicInteger open = new AtomicInteger();
    final AtomicInteger opened = new AtomicInteger();

    Tracking(FileIO delegate) {
      this.delegate = delegate;
    }

    @Override
    public InputFile newInputFile(String path) {
      InputFile file = delegate.newInputFile(path);
      return new InputFile() {
        @Override
        public long getLength() {
          return file.getLength();
        }

        @Override
        public SeekableInputStream newStream() {
          opened.incrementAndGet();
          open.incrementAndGet();
          return new Counted(file.newStream());
        }

        @Override
        public String location() {
          return file.location();
        }

        @Override
        public boolean exists() {
          return file.exists();
        }
      };
    }

    @Override
    public OutputFile newOutputFile(String path) {
      return delegate.newOutputFile(path);
    }

    @Override
    public void deleteFile(String path) {
      delegate.deleteFile(path);
    }

    private final class Counted extends SeekableInputStream {
      private final SeekableInputStream in;
      private boolean closed;

      Counted(SeekableInputStream in) {
        this.in = in;
      }

      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }

      @Override
      public int read() throws IOException {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          open.decrementAndGet();
        }
        in.close();
      }
    }
  }
}
