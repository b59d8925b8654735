package io.floe.fetch;

import io.floe.manifest.SegmentManifest;
import io.floe.rows.TableCodecs;
import org.apache.iceberg.Table;

/**
 * What a broker's fetches share: the cache of whole re-encoded segments, the readers finished
 * fetches keep for the next one ({@link IdleReaders}) and the threads that read rows ahead ({@link
 * ReadAheadPool}).
 */
public final class FetchResources implements AutoCloseable {
  private final ReencodedSegmentCache cache;
  private final ReadAheadPool readAhead;
  private final IdleReaders idleReaders = new IdleReaders(IdleReaders.DEFAULT_MAX);

  public FetchResources(ReencodedSegmentCache cache, ReadAheadPool readAhead) {
    this.cache = cache;
    this.readAhead = readAhead;
  }

  /** No cache, rows read ahead on the threads tools and tests share. */
  public static FetchResources defaults() {
    return new FetchResources(ReencodedSegmentCache.off(), ReadAheadPool.shared());
  }

  /** Opens a copied segment of {@code table} for fetches, rows read with {@code codecs}. */
  public StoredSegment open(Table table, SegmentManifest manifest, TableCodecs codecs) {
    return new StoredSegment(table, manifest, codecs, cache, idleReaders, readAhead);
  }

  public ReencodedSegmentCache cache() {
    return cache;
  }

  public IdleReaders idleReaders() {
    return idleReaders;
  }

  /** Closes the cache and stops the read-ahead threads. */
  @Override
  public void close() {
    cache.close();
    readAhead.close();
  }
}
