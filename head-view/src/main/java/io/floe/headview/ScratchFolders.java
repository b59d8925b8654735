package io.floe.headview;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The folders this process writes head files to: one per scratch root (a table's {@code
 * floe-head/}, or its folder under {@code head.scratch-location}), named by this process's instance
 * id, so that head views sharing a table never share a folder. Each holds a marker that is
 * rewritten every quarter of {@code head.leftover-age-ms} while the folder is in use: another head
 * view takes a folder for leftovers only when nothing in it was written for that long (see {@link
 * LeftoverHeads}). Thread-safe.
 */
final class ScratchFolders {
  private static final Logger LOG = LoggerFactory.getLogger(ScratchFolders.class);
  static final String MARKER = "head-view.alive";

  /** A folder in use: its FileIO, when its marker was written and when it was last claimed. */
  static final class Folder {
    final String location;
    final FileIO io;
    final long markedAtMillis;
    volatile long claimedAtMillis;

    Folder(String location, FileIO io, long markedAtMillis) {
      this.location = location;
      this.io = io;
      this.markedAtMillis = markedAtMillis;
    }

    String marker() {
      return location + "/" + MARKER;
    }
  }

  private final String instanceId = UUID.randomUUID().toString();
  private final long leftoverAgeMs;
  private final Map<String, Folder> folders = new ConcurrentHashMap<>();

  ScratchFolders(long leftoverAgeMs) {
    this.leftoverAgeMs = leftoverAgeMs;
  }

  String instanceId() {
    return instanceId;
  }

  /** This process's folder under a scratch root. */
  String folderUnder(String root) {
    return root + "/" + instanceId;
  }

  /**
   * Marks {@code folder} as in use before head files go there: writes its marker the first time
   * (and again once its mark lapsed); throws when the marker cannot be written.
   */
  synchronized void claim(String folder, FileIO io) {
    long now = System.currentTimeMillis();
    Folder f = folders.get(folder);
    if (f == null || lapsed(f, now)) {
      f = mark(folder, io);
      folders.put(folder, f);
    }
    f.claimedAtMillis = now;
  }

  /**
   * Rewrites the markers of the folders in {@code inUse} that are due; forgets the folders no
   * longer in use (nor claimed for a quarter of {@code head.leftover-age-ms}) and deletes their
   * markers.
   */
  void refresh(Set<String> inUse) {
    long now = System.currentTimeMillis();
    for (Folder f : folders.values()) {
      if (!inUse.contains(f.location)) {
        forgetIfUnused(f, inUse, now);
      } else if (now - f.markedAtMillis >= leftoverAgeMs / 4) {
        try {
          Folder again = mark(f.location, f.io);
          again.claimedAtMillis = f.claimedAtMillis;
          folders.replace(f.location, f, again);
        } catch (RuntimeException e) {
          LOG.warn(
              "Could not rewrite the marker of {} (other head views take its files for leftovers"
                  + " once nothing was written there for {} ms): {}",
              f.location,
              leftoverAgeMs,
              e.toString());
        }
      }
    }
  }

  private synchronized void forgetIfUnused(Folder f, Set<String> inUse, long now) {
    if (!inUse.contains(f.location)
        && now - f.claimedAtMillis >= leftoverAgeMs / 4
        && folders.remove(f.location, f)) {
      try {
        f.io.deleteFile(f.marker());
      } catch (RuntimeException e) {
        LOG.warn("Could not delete {}: {}", f.marker(), e.toString());
      }
    }
  }

  /**
   * True when the marker of {@code folder} was not rewritten for half of {@code
   * head.leftover-age-ms}: its heads must not be served any more, since another head view may soon
   * take their files for leftovers.
   */
  boolean lapsed(String folder) {
    Folder f = folders.get(folder);
    return f != null && lapsed(f, System.currentTimeMillis());
  }

  /** The folders in use, forgotten: the caller deletes their files and then their markers. */
  synchronized Map<String, Folder> release() {
    Map<String, Folder> out = Map.copyOf(folders);
    folders.clear();
    return out;
  }

  private boolean lapsed(Folder f, long now) {
    return now - f.markedAtMillis > leftoverAgeMs / 2;
  }

  private Folder mark(String folder, FileIO io) {
    long now = System.currentTimeMillis();
    Folder f = new Folder(folder, io, now);
    String text =
        "Head files of the Floe head view instance "
            + instanceId
            + " (pid "
            + ProcessHandle.current().pid()
            + "), marked in use at "
            + Instant.ofEpochMilli(now)
            + "\n";
    try (OutputStream out = io.newOutputFile(f.marker()).createOrOverwrite()) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write " + f.marker(), e);
    }
    return f;
  }
}
