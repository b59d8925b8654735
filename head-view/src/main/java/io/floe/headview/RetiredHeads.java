package io.floe.headview;

import io.floe.copy.Leftovers;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heads no longer served, kept until their grace time is over (a query that loaded one may still be
 * reading its files), then deleted with every file they wrote. Thread-safe.
 */
final class RetiredHeads {
  private static final Logger LOG = LoggerFactory.getLogger(RetiredHeads.class);

  private record Retired(BuiltHead head, long deleteAtNanos) {}

  private final List<Retired> retired = new ArrayList<>();

  /** Keeps {@code head} until {@code deleteAtNanos} ({@link System#nanoTime()} time). */
  synchronized void add(BuiltHead head, long deleteAtNanos) {
    retired.add(new Retired(head, deleteAtNanos));
  }

  /** Deletes the heads whose grace time is over at {@code nowNanos}. */
  void deleteDue(long nowNanos) {
    List<Retired> due = new ArrayList<>();
    synchronized (this) {
      retired.removeIf(
          r -> {
            if (r.deleteAtNanos() - nowNanos <= 0) {
              due.add(r);
              return true;
            }
            return false;
          });
    }
    due.forEach(r -> delete(r.head()));
  }

  /** Deletes every head kept, due or not. */
  void deleteAll() {
    List<Retired> all;
    synchronized (this) {
      all = new ArrayList<>(retired);
      retired.clear();
    }
    all.forEach(r -> delete(r.head()));
  }

  /**
   * Every file a head wrote: data files, its manifests and manifest lists, its metadata JSON files.
   */
  private static List<String> filesOf(ViewOperations ops, List<String> dataFiles) {
    List<String> out = new ArrayList<>(dataFiles);
    FileIO io = ops.io();
    // Only the head's own snapshots (the committed ones belong to the real table); compared by
    // snapshot id, not by location prefix, since a FileIO may normalize locations (Hadoop turns
    // file:/// into file:/).
    for (Snapshot s : ops.current().snapshots()) {
      if ("true".equals(s.summary().get(HeadView.SUMMARY_HEAD))
          && s.manifestListLocation() != null) {
        for (ManifestFile m : s.allManifests(io)) {
          if (m.snapshotId() != null
              && m.snapshotId() == s.snapshotId()
              && !out.contains(m.path())) {
            out.add(m.path());
          }
        }
        out.add(s.manifestListLocation());
      }
    }
    out.addAll(ops.metadataFiles());
    return out;
  }

  private static void delete(BuiltHead head) {
    List<String> files;
    try {
      files = filesOf(head.ops(), head.dataFileLocations());
    } catch (RuntimeException e) {
      LOG.warn("Could not list the files of head {}: {}", head.ops().scratch(), e.toString());
      files = head.dataFileLocations();
    }
    Leftovers.delete(head.ops().io(), files);
    LOG.debug("Deleted head {} ({} files)", head.ops().scratch(), files.size());
  }
}
