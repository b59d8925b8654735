package io.floe.fetch;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whole re-encoded segments kept in files on local disk, so that a consumer replaying a range
 * another consumer read before is served at the speed of a file read instead of decoding Parquet
 * and compressing again. A segment enters the cache as a fetch re-encodes it from its first batch
 * to its last in order ({@link #beginFill}); only a complete stream is kept. Least recently used
 * segments leave once the files pass the byte limit.
 *
 * <p>The files hold nothing that is not in the table: the folder is emptied of them at start and at
 * close, and any failure to write one only means that segment is not cached.
 */
public final class ReencodedSegmentCache implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReencodedSegmentCache.class);
  static final String SEGMENT_SUFFIX = ".segment";
  static final String PARTIAL_SUFFIX = ".partial";
  private static final int READ_BUFFER_BYTES = 64 * 1024;

  private final Path dir;
  private final long maxBytes;

  /** Per cached segment, where each batch starts in its file (and, last, the file's size). */
  private final LinkedHashMap<String, long[]> cached = new LinkedHashMap<>(16, 0.75f, true);

  private final Map<String, Fill> filling = new HashMap<>();
  private long cachedBytes;
  private long hits;
  private long misses;
  private long evictions;
  private boolean closed;

  private ReencodedSegmentCache(Path dir, long maxBytes) {
    this.dir = dir;
    this.maxBytes = maxBytes;
  }

  /** No cache: every fetch re-encodes. */
  public static ReencodedSegmentCache off() {
    return new ReencodedSegmentCache(null, 0);
  }

  /**
   * A cache of at most {@code maxBytes} in {@code dir}, created if missing; cache files an earlier
   * run left there are removed.
   *
   * @throws UncheckedIOException when the folder cannot be created or cleared
   */
  public static ReencodedSegmentCache in(Path dir, long maxBytes) {
    if (maxBytes <= 0) {
      return off();
    }
    try {
      Files.createDirectories(dir);
      int removed = removeCacheFiles(dir);
      LOG.info(
          "Re-encoded segments are cached in {} up to {} bytes{}",
          dir,
          maxBytes,
          removed > 0 ? " (removed " + removed + " files an earlier run left)" : "");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot use " + dir + " for cached segments: " + e, e);
    }
    return new ReencodedSegmentCache(dir, maxBytes);
  }

  public boolean enabled() {
    return dir != null;
  }

  /**
   * The cached segment from batch {@code batch} on, or null when it is not cached (or its file is
   * not the size it was written with).
   */
  public InputStream open(String segmentId, int batch) {
    if (!enabled()) {
      return null;
    }
    Path file;
    long[] starts;
    synchronized (this) {
      starts = closed ? null : cached.get(segmentId); // get, not containsKey: marks it used
      if (starts == null) {
        misses++;
        return null;
      }
      file = segmentFile(segmentId);
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.READ);
      long size = starts[starts.length - 1];
      if (channel.size() != size) {
        throw new IOException("holds " + channel.size() + " bytes, not " + size);
      }
      channel.position(starts[Math.min(batch, starts.length - 1)]);
    } catch (IOException e) {
      closeQuietly(channel);
      LOG.warn("Cached segment {} is unusable ({}): re-encoding it", segmentId, e.toString());
      invalidate(segmentId);
      synchronized (this) {
        misses++;
      }
      return null;
    }
    synchronized (this) {
      hits++;
    }
    return new BufferedInputStream(Channels.newInputStream(channel), READ_BUFFER_BYTES);
  }

  /**
   * Starts keeping the segment of {@code batches} batches (about {@code size} bytes) that a fetch
   * is about to re-encode from its first batch, or returns null when it is already cached, another
   * fetch is filling it, or it would not fit.
   */
  public Fill beginFill(String segmentId, int batches, long size) {
    if (!enabled() || batches <= 0 || size > maxBytes) {
      return null;
    }
    synchronized (this) {
      if (closed || cached.containsKey(segmentId) || filling.containsKey(segmentId)) {
        return null;
      }
      Path partial = dir.resolve(fileName(segmentId) + PARTIAL_SUFFIX);
      try {
        Fill fill =
            new Fill(
                segmentId,
                batches,
                partial,
                FileChannel.open(
                    partial,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE));
        filling.put(segmentId, fill);
        return fill;
      } catch (IOException e) {
        LOG.warn("Cannot cache segment {} in {}: {}", segmentId, dir, e.toString());
        return null;
      }
    }
  }

  /** Forgets a segment (deleted from the tier): its file goes, a fill in progress is dropped. */
  public void invalidate(String segmentId) {
    if (!enabled()) {
      return;
    }
    Fill fill;
    synchronized (this) {
      long[] starts = cached.remove(segmentId);
      if (starts != null) {
        cachedBytes -= starts[starts.length - 1];
        deleteQuietly(segmentFile(segmentId));
      }
      fill = filling.remove(segmentId);
    }
    if (fill != null) {
      fill.abandon();
    }
  }

  /** What the cache holds and did, for metrics and tests. */
  public record Stats(long hits, long misses, long segments, long bytes, long evictions) {}

  public synchronized Stats stats() {
    return new Stats(hits, misses, cached.size(), cachedBytes, evictions);
  }

  /** Removes every cache file; later fetches re-encode. */
  @Override
  public void close() {
    if (!enabled()) {
      return;
    }
    Map<String, Fill> unfinished;
    synchronized (this) {
      closed = true;
      unfinished = new HashMap<>(filling);
      filling.clear();
      cached.clear();
      cachedBytes = 0;
    }
    unfinished.values().forEach(Fill::abandon);
    try {
      removeCacheFiles(dir);
    } catch (IOException e) {
      LOG.warn("Could not empty the segment cache in {}: {}", dir, e.toString());
    }
  }

  private synchronized void admit(Fill fill) throws IOException {
    if (filling.get(fill.segmentId) != fill || closed) {
      throw new IOException("the segment was deleted or the cache closed while it was filled");
    }
    filling.remove(fill.segmentId);
    Files.move(fill.partial, segmentFile(fill.segmentId), StandardCopyOption.ATOMIC_MOVE);
    cached.put(fill.segmentId, fill.starts);
    cachedBytes += fill.written();
    for (Iterator<Map.Entry<String, long[]>> it = cached.entrySet().iterator();
        cachedBytes > maxBytes && it.hasNext(); ) {
      Map.Entry<String, long[]> eldest = it.next();
      it.remove();
      cachedBytes -= eldest.getValue()[eldest.getValue().length - 1];
      evictions++;
      deleteQuietly(segmentFile(eldest.getKey()));
    }
  }

  private synchronized void forget(Fill fill) {
    filling.remove(fill.segmentId, fill);
  }

  private Path segmentFile(String segmentId) {
    return dir.resolve(fileName(segmentId) + SEGMENT_SUFFIX);
  }

  /** Segment ids are Kafka's, a file name any file system takes is derived from them. */
  private static String fileName(String segmentId) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(segmentId.getBytes(StandardCharsets.UTF_8));
  }

  private static int removeCacheFiles(Path dir) throws IOException {
    int removed = 0;
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, "*{" + SEGMENT_SUFFIX + "," + PARTIAL_SUFFIX + "}")) {
      for (Path file : files) {
        Files.deleteIfExists(file);
        removed++;
      }
    }
    return removed;
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.debug("Could not delete cached segment file {}: {}", file, e.toString());
    }
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // a read-only channel: nothing to lose
      }
    }
  }

  /**
   * One segment being written as a fetch re-encodes it: batches must come in order from the first;
   * once the last one is in, the file joins the cache.
   */
  public final class Fill {
    private final String segmentId;
    private final long[] starts;
    private final Path partial;
    private final FileChannel channel;
    private int nextBatch;
    private boolean finished;

    private Fill(String segmentId, int batches, Path partial, FileChannel channel) {
      this.segmentId = segmentId;
      this.starts = new long[batches + 1];
      this.partial = partial;
      this.channel = channel;
    }

    private long written() {
      return starts[nextBatch];
    }

    /** Appends batch {@code index}; any other than the next one ends the fill. */
    synchronized void append(int index, ByteBuffer batch) {
      if (finished) {
        return;
      }
      if (index != nextBatch || written() + batch.remaining() > maxBytes) {
        abandon();
        return;
      }
      try {
        ByteBuffer bytes = batch.duplicate();
        long at = written();
        while (bytes.hasRemaining()) {
          at += channel.write(bytes);
        }
        starts[++nextBatch] = at;
        if (nextBatch == starts.length - 1) {
          channel.close();
          admit(this);
          finished = true;
        }
      } catch (IOException e) {
        LOG.warn("Could not cache segment {}: {}", segmentId, e.toString());
        abandon();
      }
    }

    /** Drops what was written, unless the segment is already in the cache. */
    synchronized void abandon() {
      if (finished) {
        return;
      }
      finished = true;
      closeQuietly(channel);
      deleteQuietly(partial);
      forget(this);
    }
  }
}
