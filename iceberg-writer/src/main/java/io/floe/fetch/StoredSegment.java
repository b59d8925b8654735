package io.floe.fetch;

import io.floe.format.Reencoding;
import io.floe.layout.ManifestFilesCache;
import io.floe.layout.OffsetBounds;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.CorruptSidecarException;
import io.floe.manifest.SegmentManifest;
import io.floe.rows.TableCodecs;
import io.floe.rows.TypedValueCodec;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A copied segment, opened from its manifest: serves its record stream through a pool of
 * re-encoding streams, and the indexes Kafka asks for.
 */
public final class StoredSegment implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoredSegment.class);
  public static final int MAX_IDLE_STREAMS = 2;

  private final Deque<ReencodingInputStream> idle = new ArrayDeque<>();
  private long reused;
  private long reencodingFetches;
  private boolean closed;
  private final Reencoding reencoding;
  private final Table table;
  private final SegmentManifest manifest;
  private final TableCodecs codecs;
  private final ReencodedSegmentCache cache;
  private final IdleReaders idleReaders;
  private final ReadAheadPool readAhead;
  private volatile List<String> effectiveFiles;

  /**
   * @throws CorruptSidecarException when the segment was copied with a re-encoding this Floe does
   *     not know: it is refused, loudly, rather than served with indexes that would not match the
   *     stream
   */
  public StoredSegment(Table table, SegmentManifest manifest) {
    this(table, manifest, TableCodecs.withoutRegistry());
  }

  /** As above, rows read with the codecs {@code codecs} gives for the table. */
  public StoredSegment(Table table, SegmentManifest manifest, TableCodecs codecs) {
    this(table, manifest, codecs, ReencodedSegmentCache.off());
  }

  /** As above, whole re-encoded streams kept in and served from {@code cache}. */
  public StoredSegment(
      Table table, SegmentManifest manifest, TableCodecs codecs, ReencodedSegmentCache cache) {
    this(table, manifest, codecs, cache, new IdleReaders(MAX_IDLE_STREAMS), ReadAheadPool.shared());
  }

  /**
   * As above, readers kept for later fetches counted in {@code idleReaders} with others', rows read
   * ahead of the batches being re-encoded on {@code readAhead}.
   */
  public StoredSegment(
      Table table,
      SegmentManifest manifest,
      TableCodecs codecs,
      ReencodedSegmentCache cache,
      IdleReaders idleReaders,
      ReadAheadPool readAhead) {
    this.readAhead = readAhead;
    this.codecs = codecs;
    this.cache = cache;
    this.idleReaders = idleReaders;
    this.reencoding = manifest.reencoding();
    if (manifest.typedCodecVersion() > TypedValueCodec.VERSION) {
      throw new CorruptSidecarException(
          "Segment "
              + manifest.segmentId()
              + " was typed with typed codec version "
              + manifest.typedCodecVersion()
              + ", this Floe knows versions up to "
              + TypedValueCodec.VERSION
              + ": it would not re-encode its keys and values the same way");
    }
    this.table = table;
    this.manifest = manifest;
  }

  public SegmentManifest manifest() {
    return manifest;
  }

  public Reencoding reencoding() {
    return reencoding;
  }

  public BatchDirectory directory() {
    return manifest.directory();
  }

  public List<String> dataFiles() {
    return manifest.dataFiles();
  }

  /**
   * The re-encoded batches from {@code position} (offset-index coordinates) to the end of the
   * segment. Closing the returned stream keeps its readers for the next fetch that continues where
   * it stopped (up to {@link #MAX_IDLE_STREAMS} per segment, and as many as {@link IdleReaders}
   * allows in all), so a consumer reading a segment one fetch after another decodes each row group
   * once instead of once per fetch. {@link #close()} releases them. A segment fetched from its
   * first batch to its last enters the cache, and later fetches read it from there.
   */
  public InputStream fetch(long position) {
    BatchDirectory directory = directory();
    int first = directory.indexAtOrAfter(position);
    InputStream cached = cache.open(manifest.segmentId(), first);
    if (cached != null) {
      return cached;
    }
    synchronized (idle) {
      reencodingFetches++;
      for (Iterator<ReencodingInputStream> it = idle.iterator(); it.hasNext(); ) {
        ReencodingInputStream candidate = it.next();
        if (candidate.reposition(position)) {
          it.remove();
          idleReaders.unparked(candidate);
          reused++;
          return new Lease(candidate);
        }
      }
    }
    ReencodingInputStream stream =
        new ReencodingInputStream(
            table.io(),
            table.schema(),
            codecs.forFetch(table, table.schema()),
            currentFiles(),
            directory,
            reencoding,
            position,
            readAhead);
    if (first == 0) {
      ReencodedSegmentCache.Fill fill =
          cache.beginFill(manifest.segmentId(), directory.size(), directory.encodedSize());
      if (fill != null) {
        stream.copyTo(fill);
      }
    }
    return new Lease(stream);
  }

  /**
   * As {@link #fetch(long)}, ending at {@code endPosition} (inclusive): after the bytes up to it
   * where positions are the served stream's, or after the last batch that starts at or before it
   * where they are lower bounds ({@link Reencoding#positionsAreLowerBounds()}).
   */
  public InputStream fetch(long position, long endPosition) {
    InputStream from = fetch(position);
    if (!reencoding.positionsAreLowerBounds()) {
      return RangeLimitedStream.bytes(from, Math.max(0, endPosition - position + 1));
    }
    BatchDirectory directory = directory();
    int first = directory.indexAtOrAfter(position);
    int end = directory.indexAtOrAfter(endPosition + 1);
    return RangeLimitedStream.batches(from, Math.max(0, end - first));
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
      files = manifest.dataFiles();
      for (String location : manifest.dataFiles()) {
        if (!table.io().newInputFile(location).exists()) {
          files = filesInTable();
          LOG.info(
              "Data file {} of segment {} is gone (rewritten by a compaction?): reading the {} files the table"
                  + " holds for partition {} offsets {}",
              location,
              manifest.segmentId(),
              files.size(),
              partition(),
              manifest.offsets());
          break;
        }
      }
      effectiveFiles = files;
    }
    return files;
  }

  private List<String> filesInTable() {
    table.refresh();
    List<String> out = new ArrayList<>();
    if (table.currentSnapshot() != null) {
      for (DataFile file :
          OffsetBounds.dataFilesInRange(
              table,
              table.currentSnapshot(),
              partition(),
              manifest.offsets(),
              ManifestFilesCache.NONE)) {
        out.add(file.location());
      }
    }
    return out;
  }

  private int partition() {
    return manifest.partition();
  }

  /** How many fetches re-encoded (were not served by the cache), for metrics and tests. */
  public long reencodingFetches() {
    synchronized (idle) {
      return reencodingFetches;
    }
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
      idle.forEach(this::release);
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
        release(idle.removeLast());
      }
    }
    // Outside this segment's lock: going past the bound closes other segments' readers.
    idleReaders.parked(this, stream);
  }

  /** Closes {@code reader} if it is still parked here (IdleReaders went past its bound). */
  void discard(ReencodingInputStream reader) {
    synchronized (idle) {
      if (idle.remove(reader)) {
        reader.close();
      }
    }
  }

  private void release(ReencodingInputStream reader) {
    reader.close();
    idleReaders.unparked(reader);
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
    return manifest.offsetIndex();
  }

  public ByteBuffer timeIndex() {
    return manifest.timeIndex();
  }

  public Optional<ByteBuffer> transactionIndex() {
    return manifest.transactionIndex();
  }

  public Optional<ByteBuffer> producerSnapshot() {
    return manifest.producerSnapshot();
  }

  public Optional<ByteBuffer> leaderEpochCheckpoint() {
    return manifest.leaderEpochCheckpoint();
  }
}
