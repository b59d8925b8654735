package io.floe.fetch;

import io.floe.format.Reencoding;
import io.floe.layout.OffsetBounds;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.CorruptSidecarException;
import io.floe.manifest.Sidecar;
import io.floe.manifest.Sidecar.Section;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A copied segment, opened from its sidecar: serves its record stream and the indexes Kafka asks
 * for.
 */
public final class StoredSegment implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoredSegment.class);
  public static final int MAX_IDLE_STREAMS = 2;

  public static final String PROP_TOPIC = "topic";
  public static final String PROP_TOPIC_ID = "topic-id";
  public static final String PROP_PARTITION = "partition";
  public static final String PROP_BASE_OFFSET = "base-offset";
  public static final String PROP_LAST_OFFSET = "last-offset";
  public static final String PROP_SEGMENT_ID = "segment-id";
  public static final String PROP_ENCODING_VERSION = "encoding-version";

  private final Deque<ReencodingInputStream> idle = new ArrayDeque<>();
  private long reused;
  private boolean closed;
  private final Reencoding reencoding;
  private final Table table;
  private final Sidecar sidecar;
  private final BatchDirectory directory;
  private final List<String> dataFiles;
  private volatile List<String> effectiveFiles;

  public StoredSegment(Table table, Sidecar sidecar) {
    this.reencoding = reencoding(sidecar);
    this.table = table;
    this.sidecar = sidecar;
    this.directory = BatchDirectory.deserialize(sidecar.require(Section.BATCH_DIRECTORY));
    this.dataFiles = dataFiles(sidecar);
  }

  /**
   * The re-encoding the segment's indexes were derived from (its copy recorded it): fetches
   * re-encode the same way, so segments copied by an earlier Floe keep being served. A version this
   * Floe does not know is refused, loudly, rather than served with indexes that would not match the
   * stream.
   */
  private static Reencoding reencoding(Sidecar sidecar) {
    String version = sidecar.properties().get(PROP_ENCODING_VERSION);
    try {
      return Reencoding.of(Integer.parseInt(String.valueOf(version)));
    } catch (IllegalArgumentException e) {
      throw new CorruptSidecarException(
          "Segment "
              + sidecar.properties().get(PROP_SEGMENT_ID)
              + " was copied with re-encoding version "
              + version
              + ", this Floe re-encodes with versions up to "
              + Reencoding.CURRENT.version()
              + ": its indexes would not match the served stream");
    }
  }

  public Reencoding reencoding() {
    return reencoding;
  }

  public BatchDirectory directory() {
    return directory;
  }

  public List<String> dataFiles() {
    return dataFiles;
  }

  /**
   * The re-encoded batches from {@code position} (offset-index coordinates) to the end of the
   * segment. Closing the returned stream keeps its readers for the next fetch that continues where
   * it stopped (up to {@link #MAX_IDLE_STREAMS} per segment), so a consumer reading a segment one
   * fetch after another decodes each row group once instead of once per fetch. {@link #close()}
   * releases them.
   */
  public InputStream fetch(long position) {
    synchronized (idle) {
      for (Iterator<ReencodingInputStream> it = idle.iterator(); it.hasNext(); ) {
        ReencodingInputStream candidate = it.next();
        if (candidate.reposition(position)) {
          it.remove();
          reused++;
          return new Lease(candidate);
        }
      }
    }
    return new Lease(
        new ReencodingInputStream(
            table.io(), table.schema(), currentFiles(), directory, reencoding, position));
  }

  /**
   * The files to re-encode from: the ones the copy wrote, or, once any of them is gone (a
   * compaction rewrote them and expired the old snapshot), the files the table's current snapshot
   * holds for this segment's offsets. The table stays the source of truth; the batch directory
   * still checks every batch re-encoded from them.
   */
  private List<String> currentFiles() {
    List<String> files = effectiveFiles;
    if (files == null) {
      files = dataFiles;
      for (String location : dataFiles) {
        if (!table.io().newInputFile(location).exists()) {
          files = filesInTable();
          LOG.info(
              "Data file {} of segment {} is gone (rewritten by a compaction?): reading the {} files the table"
                  + " holds for partition {} offsets {}..{}",
              location,
              sidecar.properties().get(PROP_SEGMENT_ID),
              files.size(),
              partition(),
              offsets(sidecar)[0],
              offsets(sidecar)[1]);
          break;
        }
      }
      effectiveFiles = files;
    }
    return files;
  }

  private List<String> filesInTable() {
    table.refresh();
    long[] range = offsets(sidecar);
    List<String> out = new ArrayList<>();
    if (table.currentSnapshot() != null) {
      for (FileScanTask task :
          OffsetBounds.filesInRange(
              table, table.currentSnapshot(), partition(), range[0], range[1])) {
        out.add(task.file().location());
      }
    }
    return out;
  }

  private int partition() {
    return Integer.parseInt(sidecar.properties().get(PROP_PARTITION));
  }

  /** How many fetches continued an earlier fetch's readers (for metrics and tests). */
  public long reusedStreams() {
    synchronized (idle) {
      return reused;
    }
  }

  /**
   * Releases the readers kept for later fetches; streams still being read are released when they
   * close.
   */
  @Override
  public void close() {
    synchronized (idle) {
      closed = true;
      idle.forEach(ReencodingInputStream::close);
      idle.clear();
    }
  }

  private void giveBack(ReencodingInputStream stream) {
    synchronized (idle) {
      if (closed) { // the segment was closed (evicted) while this fetch was reading: nothing to
        // keep it for
        stream.close();
        return;
      }
      idle.addFirst(stream);
      while (idle.size() > MAX_IDLE_STREAMS) {
        idle.removeLast().close();
      }
    }
  }

  /**
   * A fetch's view of a pooled stream: closing it returns the stream unless a read failed or was
   * interrupted.
   */
  private final class Lease extends FilterInputStream {
    private boolean failed;
    private boolean closed;

    Lease(ReencodingInputStream stream) {
      super(stream);
    }

    @Override
    public int read() throws IOException {
      try {
        return super.read();
      } catch (IOException | RuntimeException e) {
        failed = true;
        throw e;
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return in.read(b, off, len);
      } catch (IOException | RuntimeException e) {
        failed = true;
        throw e;
      }
    }

    @Override
    public long skip(long n) throws IOException {
      failed = true; // skipping breaks the position bookkeeping of a pooled stream: do not reuse it
      return super.skip(n);
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      ReencodingInputStream stream = (ReencodingInputStream) in;
      if (failed || Thread.currentThread().isInterrupted()) {
        stream.close();
      } else {
        giveBack(stream);
      }
    }
  }

  public ByteBuffer offsetIndex() {
    return ByteBuffer.wrap(sidecar.require(Section.OFFSET_INDEX)).asReadOnlyBuffer();
  }

  public ByteBuffer timeIndex() {
    return ByteBuffer.wrap(sidecar.require(Section.TIME_INDEX)).asReadOnlyBuffer();
  }

  public Optional<ByteBuffer> transactionIndex() {
    return sidecar
        .section(Section.TRANSACTION_INDEX)
        .map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  public Optional<ByteBuffer> producerSnapshot() {
    return sidecar
        .section(Section.PRODUCER_SNAPSHOT)
        .map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  public Optional<ByteBuffer> leaderEpochCheckpoint() {
    return sidecar
        .section(Section.LEADER_EPOCH_CHECKPOINT)
        .map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  public static List<String> dataFiles(Sidecar sidecar) {
    List<String> out = new ArrayList<>();
    for (String line : sidecar.string(Section.DATA_FILES).split("\n")) {
      if (!line.isEmpty()) {
        out.add(line);
      }
    }
    return out;
  }

  /** {base offset, last offset} from the sidecar's properties. */
  public static long[] offsets(Sidecar sidecar) {
    Map<String, String> props = sidecar.properties();
    return new long[] {
      Long.parseLong(props.get(PROP_BASE_OFFSET)), Long.parseLong(props.get(PROP_LAST_OFFSET))
    };
  }
}
