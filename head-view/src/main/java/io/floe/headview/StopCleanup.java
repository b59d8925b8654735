package io.floe.headview;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stopping does with this process's head files: per folder (see {@link ScratchFolders}), the
 * files of every head it still holds, then the folder's marker, deleted through a {@link
 * StopFileIO} until a deadline. What is left is counted per folder as it goes, so that whoever
 * waits for the stop can say at any time exactly what stays behind.
 */
final class StopCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(StopCleanup.class);
  private static final int FOLDERS_NAMED = 10;

  /** One folder's objects: head files first, the marker (if any) last. */
  private record FolderFiles(FileIO io, List<String> files, String marker) {
    int count() {
      return files.size() + (marker == null ? 0 : 1);
    }
  }

  private final Map<String, FolderFiles> folders = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> left = new ConcurrentHashMap<>();
  private final long leftoverAgeMs;
  private volatile RuntimeException failure;

  StopCleanup(
      List<BuiltHead> heads, Map<String, ScratchFolders.Folder> marked, long leftoverAgeMs) {
    this.leftoverAgeMs = leftoverAgeMs;
    Map<String, Set<String>> files = new LinkedHashMap<>();
    Map<String, FileIO> ios = new LinkedHashMap<>();
    for (BuiltHead head : heads) {
      String folder = head.ops().folder();
      files.computeIfAbsent(folder, f -> new LinkedHashSet<>()).addAll(RetiredHeads.filesOf(head));
      ios.putIfAbsent(folder, head.ops().io());
    }
    marked.forEach(
        (folder, f) -> {
          files.computeIfAbsent(folder, x -> new LinkedHashSet<>());
          ios.putIfAbsent(folder, f.io);
        });
    files.forEach(
        (folder, set) -> {
          ScratchFolders.Folder m = marked.get(folder);
          FolderFiles ff =
              new FolderFiles(ios.get(folder), List.copyOf(set), m == null ? null : m.marker());
          folders.put(folder, ff);
          left.put(folder, new AtomicInteger(ff.count()));
        });
  }

  /** Objects not deleted (yet), markers included. */
  int objects() {
    return left.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  int folders() {
    return folders.size();
  }

  /**
   * Deletes folder by folder until {@code deadlineNanos}, each request tried once and bounded by
   * {@code requestTimeoutMs}; stops at the first request that deletes nothing.
   */
  void run(long deadlineNanos, long requestTimeoutMs) {
    Map<FileIO, FileIO> stopIos = new IdentityHashMap<>();
    try {
      for (Map.Entry<String, FolderFiles> e : folders.entrySet()) {
        if (failure != null || System.nanoTime() - deadlineNanos >= 0) {
          return;
        }
        FolderFiles ff = e.getValue();
        FileIO io = stopIos.computeIfAbsent(ff.io(), from -> StopFileIO.of(from, requestTimeoutMs));
        AtomicInteger folderLeft = left.get(e.getKey());
        IntConsumer progress = n -> folderLeft.addAndGet(-n);
        HeadFileDeletes.Outcome out =
            HeadFileDeletes.deleteUntil(io, ff.files(), deadlineNanos, progress);
        if (out.failure() == null && out.left() == 0 && ff.marker() != null) {
          out = HeadFileDeletes.deleteUntil(io, List.of(ff.marker()), deadlineNanos, progress);
        }
        failure = out.failure();
      }
    } finally {
      stopIos.forEach(
          (from, copy) -> {
            if (copy != from) {
              copy.close();
            }
          });
    }
  }

  /**
   * What stays behind, for a warning: every folder with objects left (the first few by name), and
   * what removes them. Null when nothing is left.
   */
  String leftBehind() {
    StringJoiner named = new StringJoiner(", ");
    int total = 0;
    int folderCount = 0;
    for (Map.Entry<String, FolderFiles> e : folders.entrySet()) {
      int n = left.get(e.getKey()).get();
      if (n > 0) {
        total += n;
        if (++folderCount <= FOLDERS_NAMED) {
          named.add(n + " in " + e.getKey() + "/");
        }
      }
    }
    if (total == 0) {
      return null;
    }
    String more =
        folderCount > FOLDERS_NAMED
            ? " and more in " + (folderCount - FOLDERS_NAMED) + " folders"
            : "";
    return "left "
        + total
        + " head objects behind ("
        + named
        + more
        + ")"
        + (failure == null ? "" : ": the object store failed: " + failure)
        + ". A head view started later on the same catalog deletes them once nothing was written"
        + " in their folder for head.leftover-age-ms ("
        + leftoverAgeMs
        + " ms); deleting those folders by hand is safe too once this process is gone";
  }

  /** Logs the outcome of a run that finished: INFO when all is deleted, else a warning. */
  void logOutcome(long tookMs) {
    String behind = leftBehind();
    if (behind == null) {
      LOG.info("Deleted the head view's {} head objects in {} ms", deletedCount(), tookMs);
    } else {
      LOG.warn("Stopping the head view {}", behind);
    }
  }

  private int deletedCount() {
    int all = 0;
    for (FolderFiles ff : folders.values()) {
      all += ff.count();
    }
    return all - objects();
  }
}
