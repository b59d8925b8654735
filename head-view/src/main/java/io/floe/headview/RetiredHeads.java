package io.floe.headview;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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

  /** Every head kept, due or not, no longer kept: the caller deletes them. */
  synchronized List<BuiltHead> drain() {
    List<BuiltHead> all = new ArrayList<>();
    retired.forEach(r -> all.add(r.head()));
    retired.clear();
    return all;
  }

  /** Adds the folders of the heads kept to {@code folders}. */
  synchronized void addFoldersTo(Set<String> folders) {
    retired.forEach(r -> folders.add(r.head().ops().folder()));
  }

  /**
   * Every file a head wrote: its data files, its manifests and manifest lists, its metadata JSON
   * files (known without reading anything, see {@link ViewOperations}).
   */
  static List<String> filesOf(BuiltHead head) {
    List<String> out = new ArrayList<>(head.fileLocations());
    out.addAll(head.ops().metadataFiles());
    return out;
  }

  private static void delete(BuiltHead head) {
    List<String> files = filesOf(head);
    HeadFileDeletes.Outcome out = HeadFileDeletes.deleteAll(head.ops().io(), files);
    if (out.left() > 0) {
      LOG.warn(
          "Could not delete {} of the {} files of head {} (deleted with its folder once this"
              + " process is gone): {}",
          out.left(),
          files.size(),
          head.ops().scratch(),
          String.valueOf(out.failure()));
    } else {
      LOG.debug("Deleted head {} ({} files)", head.ops().scratch(), files.size());
    }
  }
}
