package io.floe.commit;

import io.floe.copy.Leftovers;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Combines concurrent segment commits into one table into one catalog commit. Each member still
 * becomes its own snapshot (its own RowDelta, summary and validation) inside one Iceberg {@link
 * Transaction}; the catalog sees one metadata swap per group instead of one per segment, so copiers
 * of one table stop racing each other.
 *
 * <p>The first copier to arrive leads: it takes every commit waiting at that moment (its own
 * included), commits them, and hands the lead to the next waiting copier, so no copier serves
 * others for long. A member whose delta cannot be staged (validation against the other members or
 * the table fails) fails alone and the group is staged again without it; a failure of the catalog
 * commit fails every member, each of which retries on its own terms. Every member returns only once
 * its own snapshot is committed (or with its own failure).
 *
 * <p>Other writers (other brokers leading partitions of the same topic) race this one for the
 * table's metadata pointer. A writer that has just committed holds the freshest metadata and wins
 * every race against writers that must reload and re-apply theirs, so without a pause one broker
 * commits back to back while the others' copies wait. While another writer is seen committing into
 * the table (its sequence numbers advance between this writer's commits, within the last {@value
 * #OTHERS_ACTIVE_MS} ms), each group's leader first pauses for one and a half times as long as the
 * previous group took, at most {@value #MAX_PAUSE_MS} ms: the others get a window, and the copies
 * arriving in the meantime join this writer's next group (fewer, larger catalog commits).
 */
final class GroupCommit {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

  /**
   * One segment's commit: fills a RowDelta of the group's transaction and checks its own snapshot.
   */
  interface Member {
    void apply(RowDelta delta);

    /** True when {@code snapshot} is the one this member wrote (its summary names the segment). */
    boolean owns(Snapshot snapshot);
  }

  static final long MAX_PAUSE_MS = 500;
  static final long OTHERS_ACTIVE_MS = 30_000;

  private final Map<String, Queue> queues = new ConcurrentHashMap<>();

  /** Commits {@code member} into {@code table}, possibly with others; returns its snapshot id. */
  long commit(Table table, Member member) {
    Queue queue = queues.computeIfAbsent(table.name(), name -> new Queue());
    Waiter me = new Waiter(table, member);
    boolean lead;
    synchronized (queue) {
      queue.waiting.add(me);
      lead = !queue.leading;
      queue.leading = true;
    }
    if (!lead) {
      lead = me.awaitTurnOrResult();
    }
    if (lead) {
      pause(queue.pauseNanos(System.nanoTime()));
      List<Waiter> group;
      synchronized (queue) {
        group = new ArrayList<>(queue.waiting);
        queue.waiting.clear();
      }
      try {
        commitGroup(table, group, queue);
      } catch (RuntimeException | Error e) {
        RuntimeException failure =
            e instanceof RuntimeException r ? r : new IllegalStateException(e);
        group.forEach(
            w -> w.failIfPending(failure)); // e.g. the refresh failed: nobody may wait forever
        throw e;
      } finally {
        synchronized (queue) {
          Waiter next = queue.waiting.peek();
          if (next == null) {
            queue.leading = false;
          } else {
            next.lead();
          }
        }
      }
    }
    return me.result();
  }

  /** How many commits wait for {@code table} (the one being committed excluded): for tests. */
  int waiting(Table table) {
    Queue queue = queues.get(table.name());
    if (queue == null) {
      return 0;
    }
    synchronized (queue) {
      return queue.waiting.size();
    }
  }

  /**
   * How long the next group's leader of {@code table} would pause now (0 while no other writer is
   * seen): for tests.
   */
  long pauseNanos(Table table) {
    Queue queue = queues.get(table.name());
    return queue == null ? 0 : queue.pauseNanos(System.nanoTime());
  }

  private static void pause(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // commit now; the caller sees the flag
    }
  }

  private static void commitGroup(Table table, List<Waiter> group, Queue queue) {
    long started = System.nanoTime();
    List<Waiter> remaining = new ArrayList<>(group);
    while (!remaining.isEmpty()) {
      table.refresh();
      long baseSequence = lastSequence(table);
      queue.sawBase(baseSequence, started);
      Transaction txn = table.newTransaction();
      List<Long> staged = new ArrayList<>();
      Waiter refused = null;
      for (Waiter w : remaining) {
        try {
          RowDelta delta = txn.newRowDelta();
          w.member.apply(delta);
          delta.commit(); // staged in the transaction: validated against the table and earlier
          // members
          staged.add(txn.table().currentSnapshot().snapshotId());
        } catch (RuntimeException e) {
          refused = w;
          w.fail(e);
          break;
        }
      }
      if (refused != null) {
        // A transaction cannot drop a staged update: give it up and stage the others again.
        discard(table, txn, staged);
        remaining.remove(refused);
        continue;
      }
      try {
        txn.commitTransaction();
      } catch (RuntimeException e) {
        remaining.forEach(w -> w.fail(e));
        return;
      }
      Table committed =
          txn.table(); // the metadata just committed (re-applied if the transaction retried)
      queue.committed(
          baseSequence, lastSequence(committed), remaining.size(), System.nanoTime() - started);
      loadCommitted(table);
      for (int i = 0; i < remaining.size(); i++) {
        Waiter w = remaining.get(i);
        w.succeed(committedSnapshot(committed, w.member, staged.get(i)));
      }
      if (remaining.size() > 1) {
        LOG.debug(
            "Committed {} segments into {} in one catalog commit", remaining.size(), table.name());
      }
      return;
    }
  }

  /**
   * Deletes what the snapshots staged in a transaction that will never commit wrote: their manifest
   * lists and the manifests they added (the members' data and delete files are theirs to keep or
   * clean). Nothing references them; left behind they would stay in the warehouse for good.
   */
  private static void discard(Table table, Transaction txn, List<Long> staged) {
    List<String> files = new ArrayList<>();
    for (long id : staged) {
      Snapshot snapshot = txn.table().snapshot(id);
      if (snapshot == null || snapshot.manifestListLocation() == null) {
        continue;
      }
      try {
        for (ManifestFile manifest : snapshot.allManifests(table.io())) {
          if (manifest.snapshotId() != null && manifest.snapshotId() == id) {
            files.add(manifest.path());
          }
        }
      } catch (RuntimeException e) {
        LOG.debug("Could not list the manifests of staged snapshot {}", id, e);
      }
      files.add(snapshot.manifestListLocation());
    }
    Leftovers.delete(table.io(), files, Level.DEBUG);
  }

  private static long lastSequence(Table table) {
    Snapshot current = table.currentSnapshot();
    return current == null ? 0 : current.sequenceNumber();
  }

  /**
   * A commit leaves the table to be reloaded on its next use. Reloading it here, while no other
   * commit of the group can start, keeps the copiers that share this table instance from each
   * reloading it at once (and a reload racing the next group's commit from making Iceberg apply
   * that whole transaction again).
   */
  private static void loadCommitted(Table table) {
    try {
      table.refresh();
    } catch (RuntimeException e) {
      LOG.debug("Reloading {} after a commit failed; its next use reloads it", table.name(), e);
    }
  }

  /**
   * The member's snapshot id: the staged one, or (should a retry have renumbered it) found by its
   * summary.
   */
  private static long committedSnapshot(Table table, Member member, long stagedId) {
    Snapshot staged = table.snapshot(stagedId);
    if (staged != null && member.owns(staged)) {
      return stagedId;
    }
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (member.owns(s)) {
        return s.snapshotId();
      }
    }
    throw new IllegalStateException(
        "Committed transaction of " + table.name() + " lacks a member's snapshot");
  }

  private static final class Queue {
    final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    boolean leading;
    // Written by one leader at a time, read by the next one (handed over under this queue's lock).
    private volatile long ownSequence =
        -1; // the table's sequence number after this writer's commit
    private volatile long othersSeenNanos;
    private volatile boolean othersSeen;
    private volatile long lastGroupNanos;

    /** Another writer committed since this writer's last commit when the table moved past it. */
    void sawBase(long sequence, long now) {
      if (ownSequence >= 0 && sequence > ownSequence) {
        othersSeen(now);
      }
    }

    /** A retried transaction is re-applied on top of other writers' commits. */
    void committed(long baseSequence, long sequence, int snapshots, long tookNanos) {
      long now = System.nanoTime();
      if (sequence > baseSequence + snapshots) {
        othersSeen(now);
      }
      ownSequence = sequence;
      lastGroupNanos = tookNanos;
    }

    private void othersSeen(long now) {
      othersSeenNanos = now;
      othersSeen = true;
    }

    long pauseNanos(long now) {
      if (!othersSeen || now - othersSeenNanos > TimeUnit.MILLISECONDS.toNanos(OTHERS_ACTIVE_MS)) {
        return 0;
      }
      return Math.min(lastGroupNanos * 3 / 2, TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MS));
    }
  }

  private static final class Waiter {
    final Table table;
    final Member member;
    private boolean turn;
    private boolean done;
    private long snapshotId;
    private RuntimeException failure;

    Waiter(Table table, Member member) {
      this.table = table;
      this.member = member;
    }

    synchronized void lead() {
      turn = true;
      notifyAll();
    }

    synchronized void succeed(long id) {
      snapshotId = id;
      done = true;
      notifyAll();
    }

    synchronized void failIfPending(RuntimeException e) {
      if (!done) {
        fail(e);
      }
    }

    synchronized void fail(RuntimeException e) {
      failure = e;
      done = true;
      notifyAll();
    }

    /** Waits until another leader committed this member (false) or the lead passes to it (true). */
    synchronized boolean awaitTurnOrResult() {
      boolean interrupted = false;
      while (!turn && !done) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted =
              true; // the commit is in flight for this member: its outcome must be awaited
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return !done;
    }

    synchronized long result() {
      if (failure != null) {
        throw failure;
      }
      return snapshotId;
    }
  }
}
