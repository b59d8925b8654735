package io.floe.maintenance;

import io.floe.manifest.CorruptSidecarException;
import io.floe.tier.SegmentKey;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires the old snapshots of one topic table by the table's own {@code history.expire.*}
 * properties: snapshots younger than the maximum age stay, and so do at least the minimum number of
 * most recent ones (the current snapshot always does).
 *
 * <p>Iceberg decides which files the expired snapshots leave unreferenced; this class deletes them,
 * except data files a live segment's sidecar still names. Kafka fetches a remote segment through
 * the data files its sidecar lists until Kafka deletes the segment, even after a compaction took
 * those files out of every retained snapshot; such a file is deleted with the segment ({@code
 * TieredSegments.delete}). An instance remembers the sidecars it has read, so keep one for repeated
 * runs.
 */
public final class SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  /** What one expiry of one table did. */
  public record Outcome(String table, int expiredSnapshots, int deletedFiles, int keptFiles) {
    public static Outcome nothing(String table) {
      return new Outcome(table, 0, 0, 0);
    }
  }

  private final SidecarDataFiles sidecars = new SidecarDataFiles();

  /** Expires {@code table}'s snapshots as of now. */
  public Outcome expire(Table table) {
    return expire(table, System.currentTimeMillis());
  }

  /** Expires {@code table}'s snapshots as of {@code nowMillis} (tests: a clock of their own). */
  public Outcome expire(Table table, long nowMillis) {
    table.refresh();
    Set<Long> before = snapshotIds(table);
    if (before.size() <= 1) {
      return Outcome.nothing(table.name());
    }
    long maxAgeMs =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.MAX_SNAPSHOT_AGE_MS,
            TableProperties.MAX_SNAPSHOT_AGE_MS_DEFAULT);
    int minToKeep =
        PropertyUtil.propertyAsInt(
            table.properties(),
            TableProperties.MIN_SNAPSHOTS_TO_KEEP,
            TableProperties.MIN_SNAPSHOTS_TO_KEEP_DEFAULT);
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations)) {
      LOG.warn(
          "Not expiring snapshots of {}: its FileIO {} cannot list the segment sidecars that say"
              + " which files Kafka still reads",
          table.name(),
          io.getClass().getName());
      return Outcome.nothing(table.name());
    }
    SafeDeletes deletes =
        new SafeDeletes(table.name(), table.location(), (SupportsPrefixOperations) io, sidecars);
    table
        .expireSnapshots()
        .expireOlderThan(nowMillis - maxAgeMs)
        .retainLast(Math.max(1, minToKeep))
        .cleanExpiredFiles(true)
        .deleteWith(deletes::delete)
        .commit();
    table.refresh();
    Set<Long> expired = new HashSet<>(before);
    expired.removeAll(snapshotIds(table));
    return new Outcome(table.name(), expired.size(), deletes.deleted.get(), deletes.kept.get());
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    for (Snapshot s : table.snapshots()) {
      ids.add(s.snapshotId());
    }
    return ids;
  }

  /**
   * Deletes the files Iceberg found unreferenced, but not the data files named by a sidecar. The
   * sidecars are read at the first delete, after the expiry committed: a segment copied later has
   * its files in no expired snapshot. Should a sidecar be unreadable, nothing is deleted this time
   * (it cannot say which files it needs).
   */
  private static final class SafeDeletes {
    private final String tableName;
    private final String sidecarPrefix;
    private final SupportsPrefixOperations io;
    private final SidecarDataFiles sidecars;
    private Set<String> namedBySidecars;
    private boolean keepAll;
    final AtomicInteger deleted = new AtomicInteger();
    final AtomicInteger kept = new AtomicInteger();

    SafeDeletes(
        String tableName,
        String tableLocation,
        SupportsPrefixOperations io,
        SidecarDataFiles sidecars) {
      this.tableName = tableName;
      this.sidecarPrefix = SegmentKey.sidecarFolder(tableLocation);
      this.io = io;
      this.sidecars = sidecars;
    }

    void delete(String location) {
      if (mustKeep(location)) {
        kept.incrementAndGet();
        return;
      }
      try {
        io.deleteFile(location);
      } catch (NotFoundException e) {
        return; // another broker's expiry of the same snapshots deleted it first
      }
      deleted.incrementAndGet();
    }

    private synchronized boolean mustKeep(String location) {
      if (namedBySidecars == null) {
        namedBySidecars = readSidecars();
      }
      return keepAll || namedBySidecars.contains(location);
    }

    private Set<String> readSidecars() {
      try {
        return sidecars.under(io, sidecarPrefix);
      } catch (CorruptSidecarException e) {
        LOG.warn(
            "A sidecar of {} cannot be read, so the files of the snapshots just expired stay",
            tableName,
            e);
        keepAll = true;
        return Set.of();
      }
    }
  }
}
