package io.floe.copy;

import java.util.Collection;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** Objects a failed or superseded copy wrote and nothing references: deleted, best effort. */
public final class Leftovers {
  private static final Logger LOG = LoggerFactory.getLogger(Leftovers.class);

  private Leftovers() {}

  /**
   * Deletes each location, logging what cannot be deleted. Runs with the thread's interrupt flag
   * cleared, then restores it: a broker shutting down interrupts its copy threads, and an
   * interrupted thread's S3 requests abort at once, so the objects of a cut-short copy would
   * otherwise stay behind.
   */
  public static void delete(FileIO io, Collection<String> locations) {
    delete(io, locations, Level.WARN);
  }

  /**
   * As {@link #delete(FileIO, Collection)}, logging what cannot be deleted at {@code level}: DEBUG
   * where a leftover costs only storage and is expected now and then (the delete files of a commit
   * attempt that lost a race).
   */
  public static void delete(FileIO io, Collection<String> locations, Level level) {
    boolean interrupted = Thread.interrupted();
    try {
      for (String location : locations) {
        try {
          io.deleteFile(location);
        } catch (RuntimeException e) {
          LOG.atLevel(level).log("Could not delete {}: {}", location, e.toString());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
