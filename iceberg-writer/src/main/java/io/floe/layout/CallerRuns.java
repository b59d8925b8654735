package io.floe.layout;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.SnapshotUpdate;

/**
 * Runs each task in the thread that submits it, for Iceberg's manifest scans and writes of Floe's
 * own snapshots and scans (copies, segment removals, a head view's loads). Given its worker pool
 * instead, Iceberg polls for the tasks' results every 10 ms ({@code Tasks.waitFor}, {@code
 * ParallelIterable}), which work on a handful of manifests waits out at every step; a commit that
 * waits between reading the table's metadata and swapping it loses more races. Never shut down: the
 * instance is shared.
 */
public final class CallerRuns extends AbstractExecutorService {
  public static final ExecutorService EXECUTOR = new CallerRuns();

  private CallerRuns() {}

  /** {@code update} with its manifests read and written in the committing thread. */
  public static <T extends SnapshotUpdate<T>> T manifestsInCallingThread(T update) {
    return update.scanManifestsWith(EXECUTOR).writeManifestsWith(EXECUTOR, 1);
  }

  @Override
  public void execute(Runnable command) {
    command.run();
  }

  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
