package io.floe.commit;

import io.floe.layout.CallerRuns;
import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Combines concurrent segment commits into one table into one snapshot and one catalog commit, so
 * copiers of one table stop racing each other and each commit's fixed cost (a manifest list, a
 * metadata file, a catalog swap) is paid once per group instead of once per segment. The snapshot's
 * summary lists every member's segment ({@link SegmentSummary#write}).
 *
 * <p>The first copier to arrive leads: it takes every commit waiting at that moment (its own
 * included), commits them, and hands the lead to the next waiting copier, so no copier serves
 * others for long. Each member planned against the snapshot it read; a member that something
 * committed since then conflicts with ({@link MemberConflicts}) fails alone, to plan again, and the
 * others commit with validation from the snapshot the leader just read, with no other read of the
 * table before or after the catalog commit ({@link JustReadOperations}). Should a concurrent commit
 * conflict while the group commits, the leader reads the table again and leaves out the members it
 * conflicts with. A failure of the catalog commit fails every member, each of which retries on its
 * own terms. Every member returns only once its segment is committed (or with its own failure).
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
   * One segment's commit: the segment as the snapshot's summary records it, the snapshot its plan
   * read ({@code base}, null when the table had none), the data files its position deletes point at
   * (they must still be live at commit), and what adds its data and delete files to the group's
   * snapshot.
   */
  record Member(
      SegmentSummary.Segment segment,
      Long base,
      Set<String> referencedFiles,
      Consumer<RowDelta> addTo) {}

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
    int conflicts = 0;
    while (!remaining.isEmpty()) {
      table.refresh();
      Snapshot head = table.currentSnapshot();
      long baseSequence = head == null ? 0 : head.sequenceNumber();
      queue.sawBase(baseSequence, started);
      remaining = admitted(table, head, remaining);
      if (remaining.isEmpty()) {
        return;
      }
      BaseTable base = catalogTable(table);
      JustReadOperations ops = new JustReadOperations(base.operations());
      try {
        stage(new BaseTable(ops, table.name(), base.reporter()).newRowDelta(), head, remaining);
      } catch (ValidationException e) {
        // A concurrent commit conflicts with a member: the next round's read leaves it out. Each
        // round leaves out at least one member, unless the conflict is one MemberConflicts does
        // not know: then the members fail.
        if (++conflicts > group.size()) {
          fail(remaining, e);
          return;
        }
        LOG.debug("A concurrent commit into {} conflicts with the group", table.name(), e);
        continue;
      } catch (RuntimeException e) {
        fail(remaining, e);
        return;
      }
      // The metadata the commit wrote (re-applied on top of other writers' commits if it retried):
      // nothing from here on reads the table, which could fail after the swap.
      TableMetadata committed = ops.committed();
      if (committed == null) {
        fail(
            remaining,
            new IllegalStateException(
                "The group's commit into " + table.name() + " changed nothing"));
        return;
      }
      queue.committed(baseSequence, lastSequence(committed), System.nanoTime() - started);
      long snapshotId = committedSnapshot(committed, table, remaining.get(0).member.segment());
      loadCommitted(table);
      remaining.forEach(w -> w.succeed(snapshotId));
      if (remaining.size() > 1) {
        LOG.debug(
            "Committed {} segments into {} in snapshot {}",
            remaining.size(),
            table.name(),
            snapshotId);
      }
      return;
    }
  }

  /**
   * The waiters whose members can commit on top of {@code head}; the others fail, to plan again.
   */
  private static List<Waiter> admitted(Table table, Snapshot head, List<Waiter> waiters) {
    List<Member> members = new ArrayList<>(waiters.size());
    waiters.forEach(w -> members.add(w.member));
    Map<Member, String> refused = MemberConflicts.of(table, head, members);
    if (refused.isEmpty()) {
      return waiters;
    }
    List<Waiter> admitted = new ArrayList<>(waiters.size());
    for (Waiter w : waiters) {
      String reason = refused.get(w.member);
      if (reason == null) {
        admitted.add(w);
      } else {
        SegmentSummary.Segment s = w.member.segment();
        w.fail(
            new ValidationException(
                "Segment %s of partition %s must plan its commit into %s again: %s",
                s.segmentId(), s.partition(), table.name(), reason));
      }
    }
    return admitted;
  }

  /**
   * Stages the group's one snapshot: every member's files and segment, validated from {@code head}
   * (which every member is checked against already) in the members' partitions.
   */
  private static void stage(RowDelta delta, Snapshot head, List<Waiter> members) {
    List<SegmentSummary.Segment> segments = new ArrayList<>(members.size());
    Set<Integer> partitions = new TreeSet<>();
    Set<String> referenced = new TreeSet<>();
    for (Waiter w : members) {
      w.member.addTo().accept(delta);
      segments.add(w.member.segment());
      partitions.add(w.member.segment().partition());
      referenced.addAll(w.member.referencedFiles());
    }
    SegmentSummary.write(segments, delta::set);
    // Validation and manifest writes in the calling thread (see CallerRuns): every millisecond
    // between reading the table's metadata and swapping it is one in which another broker's
    // commit makes this one fail.
    CallerRuns.manifestsInCallingThread(delta)
        .conflictDetectionFilter(Expressions.in(TopicTableLayout.PARTITION, partitions.toArray()))
        .validateNoConflictingDataFiles()
        .validateDeletedFiles();
    if (head != null) {
      delta.validateFromSnapshot(head.snapshotId());
    }
    if (!referenced.isEmpty()) {
      // A concurrent segment delete that took one of them out of the table makes the group read
      // the table again.
      delta.validateDataFilesExist(referenced);
    }
    delta.commit();
  }

  private static void fail(List<Waiter> waiters, RuntimeException e) {
    waiters.forEach(w -> w.fail(e));
  }

  /** A table as catalogs load it (the group commits through its operations). */
  private static BaseTable catalogTable(Table table) {
    if (table instanceof BaseTable base) {
      return base;
    }
    throw new IllegalArgumentException(
        "Cannot commit into "
            + table.name()
            + ": not a catalog's table ("
            + table.getClass()
            + ")");
  }

  private static long lastSequence(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    return current == null ? 0 : current.sequenceNumber();
  }

  /**
   * A catalog's operations that read the table lazily after a commit (JDBC) read it now, while no
   * other commit of the group can start: the copiers that share this table instance then plan
   * against it without each reading it at once. Operations that hold the committed metadata (REST)
   * read nothing. A failed read only leaves the table to be read on its next use.
   */
  private static void loadCommitted(Table table) {
    try {
      catalogTable(table).operations().current();
    } catch (RuntimeException e) {
      LOG.debug("Reading {} after a commit failed; its next use reads it", table.name(), e);
    }
  }

  /**
   * The id of the snapshot that committed {@code segment}: the committed metadata's current one, or
   * (should a retry have put another writer's commit on top) found by its summary.
   */
  private static long committedSnapshot(
      TableMetadata metadata, Table table, SegmentSummary.Segment segment) {
    for (Snapshot s = metadata.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : metadata.snapshot(s.parentId())) {
      for (SegmentSummary.Segment committed : SegmentSummary.segmentsOf(s.summary())) {
        if (committed.sameSegment(segment)) {
          return s.snapshotId();
        }
      }
    }
    throw new IllegalStateException(
        "Committed metadata of " + table.name() + " lacks the group's snapshot");
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

    /** A retried commit is re-applied on top of other writers' commits. */
    void committed(long baseSequence, long sequence, long tookNanos) {
      long now = System.nanoTime();
      if (sequence > baseSequence + 1) {
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
