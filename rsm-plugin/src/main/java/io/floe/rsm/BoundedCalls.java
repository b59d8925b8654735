package io.floe.rsm;

import io.floe.tier.CopyStep;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the plugin's work on threads of its own, so that the broker's thread that called waits at
 * most a bound ({@link FloeRsmConfig#OPERATION_TIMEOUT_MS}, and {@link
 * FloeRsmConfig#COPY_TIMEOUT_MS} for a copy as a whole): waits on the object store or the catalog
 * that no client setting bounds (Iceberg retrying a metadata read 20 times over about 90 s, a
 * commit behind a database lock, an answer that never comes) cannot hold a broker thread longer.
 *
 * <p>Past its bound, or when the broker interrupts the calling thread (Kafka cancels a copy when
 * the partition's leadership moves or the broker stops), the call is given up: its work is
 * interrupted, which stops it at its next wait on storage or backoff, and the caller gets {@link
 * CallTimeoutException} or {@link CallCancelledException}. A copy given up is refused its next
 * step, so one given up before its commit never begins it and removes its files; one given up
 * inside its commit's catalog swap ends as that swap does, whole or not at all (logged when it
 * ends). A later call on the same segment (Kafka deleting the copy it gave up) waits for the
 * earlier one to end first, within its own bound, so that a late commit and a delete never
 * interleave.
 */
final class BoundedCalls implements AutoCloseable {
  // The plugin's log category before its parts had classes of their own: log configs name it.
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteStorageManager.class);
  private static final long CLOSE_GRACE_MS = 10_000;

  /** Work run on a worker thread; a copy announces its steps through {@code steps}. */
  @FunctionalInterface
  interface Work<T> {
    T run(Consumer<CopyStep> steps) throws Exception;
  }

  private final long operationTimeoutNanos;
  private final long copyTimeoutNanos;
  private final Function<Throwable, String> describe;
  private final ThreadPoolExecutor workers;
  // the calls of each segment still running; each set is only touched inside compute
  private final Map<String, Set<Call<?>>> bySegment = new ConcurrentHashMap<>();
  private final Set<Call<?>> running = ConcurrentHashMap.newKeySet();

  /**
   * @param describe how a failure is described in a log line (without credentials)
   */
  BoundedCalls(
      long operationTimeoutMs,
      long copyTimeoutMs,
      Function<Throwable, String> describe,
      int brokerId) {
    this.operationTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(operationTimeoutMs);
    this.copyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(copyTimeoutMs);
    this.describe = describe;
    ClassLoader loader = BoundedCalls.class.getClassLoader();
    AtomicInteger count = new AtomicInteger();
    String prefix = "floe-rsm-" + (brokerId >= 0 ? brokerId + "-" : "") + "worker-";
    this.workers =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            task -> {
              Thread t = new Thread(task, prefix + count.incrementAndGet());
              t.setDaemon(true);
              // Iceberg and the AWS SDK resolve classes through the context class loader.
              t.setContextClassLoader(loader);
              return t;
            });
  }

  /**
   * Runs a copy of {@code segmentId}: bounded by {@code copy.timeout.ms} in all and by {@code
   * operation.timeout.ms} in each step but the writing of its data.
   *
   * @param what the call in log lines ("Copy of segment ...")
   */
  <T> T copy(String segmentId, String what, Work<T> work) throws Exception {
    return start(new Call<>(this, segmentId, what, null, true, work)).await();
  }

  /**
   * Runs a call bounded by {@code operation.timeout.ms}. With a {@code segmentId}, it starts once
   * any earlier call on that segment still running has ended (the wait counts toward the bound).
   *
   * @param doing what the work does, for the timeout message ("opening the segment ...")
   */
  <T> T call(String segmentId, String what, String doing, Work<T> work) throws Exception {
    return start(new Call<>(this, segmentId, what, doing, false, work)).await();
  }

  private <T> Call<T> start(Call<T> call) {
    if (call.segmentId != null) {
      bySegment.compute(
          call.segmentId,
          (id, calls) -> {
            Set<Call<?>> same = calls == null ? new HashSet<>() : calls;
            call.earlier = List.copyOf(same);
            same.add(call);
            return same;
          });
    }
    running.add(call);
    try {
      workers.execute(call::run);
    } catch (RejectedExecutionException e) {
      ended(call);
      throw new CallCancelledException("cancelled: the plugin is closed (the broker is stopping)");
    }
    return call;
  }

  private void ended(Call<?> call) {
    running.remove(call);
    if (call.segmentId != null) {
      bySegment.computeIfPresent(
          call.segmentId,
          (id, calls) -> {
            calls.remove(call);
            return calls.isEmpty() ? null : calls;
          });
    }
  }

  /** Calls whose work has not ended (given up ones included): for tests and close. */
  int running() {
    return running.size();
  }

  /**
   * Interrupts the work still running and waits for it to end, at most {@code
   * min(operation.timeout.ms, 10 s)}: a copy in the middle of its commit finishes it.
   */
  @Override
  public void close() {
    workers.shutdown();
    List<Call<?>> left = new ArrayList<>(running);
    left.forEach(Call::interruptWork);
    long deadline =
        System.nanoTime()
            + Math.min(operationTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(CLOSE_GRACE_MS));
    for (Call<?> call : left) {
      call.awaitEnd(deadline);
    }
    List<String> stuck = running.stream().map(c -> c.what).toList();
    if (!stuck.isEmpty()) {
      LOG.warn(
          "Closing with {} call(s) still running, left to end on their own: {}",
          stuck.size(),
          stuck);
    }
    workers.shutdownNow();
  }

  /** One call: its work, bounds, state and the thread that runs it. */
  private static final class Call<T> {
    private final BoundedCalls owner;
    final String segmentId;
    final String what;
    private final String doing;
    private final boolean copy;
    private final Work<T> work;
    private final long startNanos = System.nanoTime();
    List<Call<?>> earlier = List.of();

    // guarded by this
    private String waitingFor;
    private CopyStep step;
    private long stepStartNanos;
    private Thread thread;
    private boolean done;
    private boolean givenUp;
    private long givenUpNanos;
    private T result;
    private Throwable failure;

    Call(
        BoundedCalls owner,
        String segmentId,
        String what,
        String doing,
        boolean copy,
        Work<T> work) {
      this.owner = owner;
      this.segmentId = segmentId;
      this.what = what;
      this.doing = doing;
      this.copy = copy;
      this.work = work;
      this.waitingFor = doing;
    }

    /** On a worker thread. */
    void run() {
      synchronized (this) {
        thread = Thread.currentThread();
      }
      T value = null;
      Throwable error = null;
      try {
        awaitEarlierCalls();
        value = work.run(this::step);
      } catch (Throwable e) {
        error = e;
      }
      owner.ended(this);
      boolean late;
      synchronized (this) {
        thread = null;
        done = true;
        result = value;
        failure = error;
        late = givenUp;
        notifyAll();
      }
      Thread.interrupted(); // an interrupt meant for this call must not reach the next one
      if (late) {
        reportLate(value, error);
      }
    }

    private void awaitEarlierCalls() throws InterruptedException {
      List<Call<?>> calls = earlier;
      earlier = List.of();
      boolean waited = false;
      for (Call<?> call : calls) {
        if (!call.hasEnded()) {
          announce("waiting for an earlier call on this segment to end (" + call.what + ")");
          call.awaitEnd();
          waited = true;
        }
      }
      if (waited) {
        announce(doing);
      }
    }

    private synchronized void announce(String doingNow) {
      waitingFor = doingNow;
      stepStartNanos = System.nanoTime();
      notifyAll();
    }

    /**
     * A copy given up does not begin another step: TieredSegments cleans what it wrote, and a
     * commit it had not begun never begins (its interrupt alone might be swallowed on the way).
     */
    private synchronized void step(CopyStep next) {
      if (givenUp) {
        throw new CancellationException(what + " was given up before " + next.description());
      }
      step = next;
      waitingFor = next.description();
      stepStartNanos = System.nanoTime();
      notifyAll(); // the caller's deadline may have moved
    }

    synchronized boolean hasEnded() {
      return done;
    }

    /** Waits for the work to end, interruptibly (the waiting work's own thread is a worker). */
    synchronized void awaitEnd() throws InterruptedException {
      while (!done) {
        wait();
      }
    }

    /** Waits for the work to end until {@code deadlineNanos}, uninterruptibly. */
    synchronized void awaitEnd(long deadlineNanos) {
      boolean interrupted = false;
      long remaining;
      while (!done && (remaining = deadlineNanos - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(this, remaining);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    /** On the calling thread: the work's result, or why there is none. */
    T await() throws Exception {
      synchronized (this) {
        while (!done) {
          Bound bound = bound();
          long remaining = bound.deadlineNanos - System.nanoTime();
          if (remaining <= 0) {
            String waitingOn = thread == null ? "a worker thread" : WaitDiagnosis.of(thread);
            String during = waitingFor;
            giveUp();
            throw new CallTimeoutException(bound.key, bound.millis(), during, waitingOn);
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
          } catch (InterruptedException e) {
            String during = waitingFor;
            giveUp();
            Thread.currentThread().interrupt(); // the broker's to act on
            throw CallCancelledException.interrupted(during);
          }
        }
      }
      if (failure instanceof Exception e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
      return result;
    }

    /** The deadline that applies now, and the key that sets it. Guarded by this. */
    private Bound bound() {
      long whole = copy ? owner.copyTimeoutNanos : owner.operationTimeoutNanos;
      Bound overall =
          new Bound(
              startNanos + whole,
              copy ? FloeRsmConfig.COPY_TIMEOUT_MS : FloeRsmConfig.OPERATION_TIMEOUT_MS,
              whole);
      if (copy && step != null && step != CopyStep.WRITE_DATA) {
        long stepEnd = stepStartNanos + owner.operationTimeoutNanos;
        if (stepEnd - overall.deadlineNanos < 0) {
          return new Bound(
              stepEnd, FloeRsmConfig.OPERATION_TIMEOUT_MS, owner.operationTimeoutNanos);
        }
      }
      return overall;
    }

    /** Interrupts the work (at most once); the caller no longer waits for it. */
    synchronized void giveUp() {
      if (givenUp || done) {
        return;
      }
      givenUp = true;
      givenUpNanos = System.nanoTime();
      interruptWork();
    }

    /** Interrupts the work's thread, if the work runs. */
    synchronized void interruptWork() {
      if (thread != null) {
        thread.interrupt();
      }
    }

    private void reportLate(T value, Throwable error) {
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - givenUpNanos);
      if (error == null) {
        LOG.info(
            "{} completed {} ms after its call was given up (it could not be interrupted); Kafka"
                + " considers it failed and retries it",
            what,
            ms);
        if (value instanceof AutoCloseable closeable) {
          try {
            closeable.close(); // nobody reads it
          } catch (Exception e) {
            LOG.debug("Closing the result of {} failed: {}", what, owner.describe.apply(e));
          }
        }
      } else {
        LOG.debug(
            "{} ended {} ms after its call was given up: {}",
            what,
            ms,
            owner.describe.apply(error));
      }
    }
  }

  private record Bound(long deadlineNanos, String key, long boundNanos) {
    long millis() {
      return TimeUnit.NANOSECONDS.toMillis(boundNanos);
    }
  }
}
