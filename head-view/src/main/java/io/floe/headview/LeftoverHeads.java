package io.floe.headview;

import io.floe.layout.TopicTableLayout;
import java.io.FileNotFoundException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Head files that head views which are gone left behind (killed, crashed, or stopped while the
 * object store failed). Each head-view process writes under a scratch root into a folder of its
 * own, named by its instance id, and keeps a marker there rewritten while it runs (see {@link
 * ScratchFolders}); so a folder of another instance in which nothing was written for {@code
 * head.leftover-age-ms} belongs to a process that is gone, and its objects are deleted. A folder
 * written to more recently is looked at again once that age is reached: deleted if nothing new was
 * written, left alone if something was (its head view is alive). Only objects under a scratch root
 * are ever listed: a table's {@code floe-head/} or its folder under {@code head.scratch-location},
 * never the table's own files. Runs on a background thread.
 */
final class LeftoverHeads implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeftoverHeads.class);
  private static final long RECHECK_MARGIN_MS = 1_000;

  /** One folder as listed: its objects and when the newest was written (epoch ms). */
  private static final class Folder {
    final List<String> objects = new ArrayList<>();
    long newestMillis = Long.MIN_VALUE;

    void add(FileInfo f) {
      objects.add(f.location());
      newestMillis = Math.max(newestMillis, f.createdAtMillis());
    }
  }

  /** Counts for the start-up summary. */
  private record Tally(int deletedObjects, int deletedFolders, int recentFolders) {
    static final Tally ZERO = new Tally(0, 0, 0);

    Tally plus(Tally o) {
      return new Tally(
          deletedObjects + o.deletedObjects,
          deletedFolders + o.deletedFolders,
          recentFolders + o.recentFolders);
    }
  }

  private final String instanceId;
  private final long maxAgeMs;
  private final ScheduledExecutorService executor;
  private final Set<String> scannedRoots = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean unlistableLogged = new AtomicBoolean();
  private volatile boolean closed;

  LeftoverHeads(String instanceId, long maxAgeMs) {
    this.instanceId = instanceId;
    this.maxAgeMs = maxAgeMs;
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "floe-head-leftovers");
              t.setDaemon(true);
              return t;
            });
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = pool;
  }

  /** In the background: the scratch root of every topic table of {@code ns}. */
  void scanAtStart(Catalog catalog, Namespace ns, Function<TableMetadata, String> rootOf) {
    later(() -> scanTables(catalog, ns, rootOf), 0);
  }

  /** In the background, once per process: a scratch root this process is about to write to. */
  void scanOnce(FileIO io, String root) {
    if (scannedRoots.add(root)) {
      later(() -> scanRoot(io, root), 0);
    }
  }

  /**
   * Runs nothing more. Not an interrupt: a listing under way ends by itself (an interrupted Hadoop
   * listing logs a stack trace), and nothing is deleted once closed.
   */
  @Override
  public void close() {
    closed = true;
    executor.shutdown();
  }

  /** Runs {@code task} in {@code delayMs}, unless closed meanwhile. */
  private void later(Runnable task, long delayMs) {
    try {
      executor.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void scanTables(Catalog catalog, Namespace ns, Function<TableMetadata, String> rootOf) {
    List<TableIdentifier> ids;
    try {
      ids = catalog.listTables(ns);
    } catch (NoSuchNamespaceException e) {
      return;
    } catch (RuntimeException e) {
      if (!closed) {
        LOG.warn("Could not list the tables of {} to look for leftover head files: {}", ns, e);
      }
      return;
    }
    Tally total = Tally.ZERO;
    int tables = 0;
    for (TableIdentifier id : ids) {
      if (closed) {
        return;
      }
      try {
        Table table = catalog.loadTable(id);
        TableMetadata base =
            table instanceof HasTableOperations t ? t.operations().current() : null;
        if (base != null && base.properties().containsKey(TopicTableLayout.PROP_TOPIC)) {
          tables++;
          String root = rootOf.apply(base);
          if (scannedRoots.add(root)) {
            total = total.plus(scanRoot(table.io(), root));
          }
        }
      } catch (RuntimeException e) {
        if (!closed) {
          LOG.warn("Could not look for leftover head files of {}: {}", id, e.toString());
        }
      }
    }
    if (closed) {
      return;
    }
    LOG.info(
        "Looked for head files left by stopped head views under the topic tables of {} ({}):"
            + " deleted {} objects in {} folder(s); {} folder(s) of other head views were written to"
            + " within head.leftover-age-ms ({} ms) and are looked at again once it is over",
        ns,
        tables,
        total.deletedObjects(),
        total.deletedFolders(),
        total.recentFolders(),
        maxAgeMs);
  }

  private Tally scanRoot(FileIO io, String root) {
    if (!(io instanceof SupportsPrefixOperations lister)) {
      if (unlistableLogged.compareAndSet(false, true)) {
        LOG.info(
            "{} cannot list objects: head files left by stopped head views are not looked for",
            io.getClass().getName());
      }
      return Tally.ZERO;
    }
    Map<String, Folder> folders = new LinkedHashMap<>();
    String rootKey = withoutScheme(root) + "/";
    try {
      for (FileInfo f : lister.listPrefix(root + "/")) {
        String rel = withoutScheme(f.location());
        int slash = rel.startsWith(rootKey) ? rel.indexOf('/', rootKey.length()) : -1;
        String name = slash < 0 ? null : rel.substring(rootKey.length(), slash);
        if (name != null && !name.isEmpty() && !name.equals(instanceId)) {
          folders.computeIfAbsent(root + "/" + name, k -> new Folder()).add(f);
        }
      }
    } catch (RuntimeException e) {
      if (closed || notFound(e)) {
        return Tally.ZERO; // stopping, or a local warehouse without the folder yet
      }
      LOG.warn(
          "Could not list {} for head files left by stopped head views (trying again in {} ms):"
              + " {}",
          root,
          maxAgeMs / 4,
          e.toString());
      later(() -> scanRoot(io, root), maxAgeMs / 4);
      return Tally.ZERO;
    }
    Tally tally = Tally.ZERO;
    for (Map.Entry<String, Folder> e : folders.entrySet()) {
      tally = tally.plus(decide(lister, e.getKey(), e.getValue(), Long.MIN_VALUE));
    }
    return tally;
  }

  /**
   * Deletes a folder nothing was written to for the leftover age; else looks at it again then,
   * unless something was written since {@code seenNewest} (its head view is alive).
   */
  private Tally decide(SupportsPrefixOperations io, String folder, Folder seen, long seenNewest) {
    long age = System.currentTimeMillis() - seen.newestMillis;
    if (seenNewest != Long.MIN_VALUE && seen.newestMillis > seenNewest) {
      LOG.debug("{} was written to since it was first seen: its head view is alive", folder);
      return Tally.ZERO;
    }
    if (age < maxAgeMs) {
      long newest = seen.newestMillis;
      later(() -> recheck(io, folder, newest), maxAgeMs - age + RECHECK_MARGIN_MS);
      return new Tally(0, 0, 1);
    }
    if (closed) {
      return Tally.ZERO;
    }
    HeadFileDeletes.Outcome out = HeadFileDeletes.deleteAll(io, seen.objects);
    if (out.left() == 0) {
      LOG.info(
          "Deleted {} head objects that a stopped head view left in {} (nothing written there for"
              + " {} s)",
          out.deleted(),
          folder,
          age / 1000);
    } else {
      LOG.warn(
          "Could not delete {} of the {} head objects that a stopped head view left in {}: {}",
          out.left(),
          seen.objects.size(),
          folder,
          String.valueOf(out.failure()));
    }
    return new Tally(out.deleted(), out.left() == 0 ? 1 : 0, 0);
  }

  private void recheck(SupportsPrefixOperations io, String folder, long seenNewest) {
    Folder now = new Folder();
    try {
      io.listPrefix(folder + "/").forEach(now::add);
    } catch (RuntimeException e) {
      if (closed || notFound(e)) {
        return;
      }
      LOG.warn("Could not list {} (trying again in {} ms): {}", folder, maxAgeMs / 4, e.toString());
      later(() -> recheck(io, folder, seenNewest), maxAgeMs / 4);
      return;
    }
    if (!now.objects.isEmpty()) {
      decide(io, folder, now, seenNewest);
    }
  }

  private static boolean notFound(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof FileNotFoundException) {
        return true;
      }
    }
    return false;
  }

  /**
   * A location without its scheme and leading slashes, to compare locations a FileIO may spell
   * differently (Hadoop lists file:///x as file:/x).
   */
  private static String withoutScheme(String location) {
    int colon = location.indexOf(':');
    String rest =
        colon > 0 && location.lastIndexOf('/', colon) < 0
            ? location.substring(colon + 1)
            : location;
    int i = 0;
    while (i < rest.length() && rest.charAt(i) == '/') {
      i++;
    }
    return rest.substring(i);
  }
}
