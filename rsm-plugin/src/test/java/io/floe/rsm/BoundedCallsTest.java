package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.floe.tier.CopyStep;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bounds of {@link BoundedCalls} with plain work (latches stand in for waits on storage): what
 * the caller gets, how long it waits, what happens to the work.
 */
class BoundedCallsTest {
  private static final long OPERATION_MS = 300;
  private static final long COPY_MS = 1_500;
  // generous for a loaded 2-core machine: the bound itself is what is asserted against
  private static final long MARGIN_MS = 700;

  private final BoundedCalls calls =
      new BoundedCalls(OPERATION_MS, COPY_MS, Throwable::toString, -1);

  @AfterEach
  void close() {
    calls.close();
  }

  @Test
  void returnsTheResultOrTheWorksOwnFailure() throws Exception {
    String done = calls.call(null, "call", "working", steps -> "done");
    assertThat(done).isEqualTo("done");
    IOException failure = new IOException("disk");
    assertThat(
            catchThrowable(
                () ->
                    calls.call(
                        null,
                        "call",
                        "working",
                        steps -> {
                          throw failure;
                        })))
        .isSameAs(failure);
  }

  @Test
  void aCallPastItsBoundIsGivenUpAndItsWorkInterrupted() throws Exception {
    CountDownLatch interrupted = new CountDownLatch(1);
    long start = System.nanoTime();
    Throwable thrown =
        catchThrowable(
            () ->
                calls.call(
                    null,
                    "call",
                    "opening the segment",
                    steps -> {
                      try {
                        new CountDownLatch(1).await();
                      } catch (InterruptedException e) {
                        interrupted.countDown();
                      }
                      return null;
                    }));
    long ms = elapsedMs(start);
    assertThat(thrown)
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("operation.timeout.ms=300 ms while opening the segment");
    assertThat(((CallTimeoutException) thrown).key()).isEqualTo("operation.timeout.ms");
    assertThat(ms).isBetween(OPERATION_MS, OPERATION_MS + MARGIN_MS);
    assertThat(await(interrupted)).as("the work was interrupted").isTrue();
  }

  @Test
  void aCopyHasTheCopyBoundWhileWritingAndTheOperationBoundInItsOtherSteps() throws Exception {
    // Writing for longer than operation.timeout.ms is fine; then the commit waits for ever.
    long start = System.nanoTime();
    Throwable thrown =
        catchThrowable(
            () ->
                calls.copy(
                    "segment-a",
                    "copy",
                    steps -> {
                      steps.accept(CopyStep.LOAD_TABLE);
                      steps.accept(CopyStep.WRITE_DATA);
                      Thread.sleep(OPERATION_MS * 2);
                      steps.accept(CopyStep.COMMIT);
                      new CountDownLatch(1).await();
                      return null;
                    }));
    long ms = elapsedMs(start);
    assertThat(thrown)
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("operation.timeout.ms=300 ms while " + CopyStep.COMMIT.description());
    assertThat(ms).isBetween(OPERATION_MS * 3, OPERATION_MS * 3 + MARGIN_MS);

    // A copy that writes past copy.timeout.ms is cut there.
    start = System.nanoTime();
    thrown =
        catchThrowable(
            () ->
                calls.copy(
                    "segment-b",
                    "copy",
                    steps -> {
                      steps.accept(CopyStep.WRITE_DATA);
                      new CountDownLatch(1).await();
                      return null;
                    }));
    assertThat(thrown)
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("copy.timeout.ms=1500 ms while " + CopyStep.WRITE_DATA.description());
    assertThat(elapsedMs(start)).isBetween(COPY_MS, COPY_MS + MARGIN_MS);
  }

  @Test
  void anInterruptedCallerGetsACancellationAtOnceAndKeepsItsInterrupt() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch workInterrupted = new CountDownLatch(1);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              thrown.set(
                  catchThrowable(
                      () ->
                          calls.copy(
                              "segment-c",
                              "copy",
                              steps -> {
                                steps.accept(CopyStep.COMMIT);
                                started.countDown();
                                try {
                                  new CountDownLatch(1).await();
                                } catch (InterruptedException e) {
                                  workInterrupted.countDown();
                                }
                                return null;
                              })));
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
    caller.start();
    assertThat(await(started)).isTrue();
    long start = System.nanoTime();
    caller.interrupt();
    caller.join(TimeUnit.SECONDS.toMillis(5));
    assertThat(elapsedMs(start)).isLessThan(MARGIN_MS);
    assertThat(thrown.get())
        .isInstanceOf(CallCancelledException.class)
        .hasMessageContaining("cancelled by the broker")
        .hasMessageContaining(CopyStep.COMMIT.description());
    assertThat(stillInterrupted).as("the caller's interrupt status").isTrue();
    assertThat(await(workInterrupted)).isTrue();
  }

  @Test
  void aLaterCallOnASegmentWaitsForTheEarlierOneToEnd() throws Exception {
    // The earlier call cannot be interrupted (a statement behind a database lock, say).
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean earlierEnded = new AtomicBoolean();
    assertThatThrownBy(
            () ->
                calls.copy(
                    "segment-d",
                    "copy",
                    steps -> {
                      steps.accept(CopyStep.COMMIT);
                      awaitUninterruptibly(release);
                      earlierEnded.set(true);
                      return null;
                    }))
        .isInstanceOf(CallTimeoutException.class);

    // While it runs, the delete of the same segment waits for it, within its own bound.
    assertThatThrownBy(() -> calls.call("segment-d", "delete", "deleting", steps -> "deleted"))
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageContaining("waiting for an earlier call on this segment to end (copy)");
    // Another segment's calls do not wait.
    String other = calls.call("segment-e", "delete", "deleting", steps -> "deleted");
    assertThat(other).isEqualTo("deleted");

    CompletableFuture<Object> delete =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return calls.call(
                    "segment-d", "delete", "deleting", steps -> earlierEnded.get() ? "after" : "");
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    release.countDown();
    assertThat(delete.get(5, TimeUnit.SECONDS)).isEqualTo("after");
  }

  @Test
  void aCopyGivenUpBeforeItsCommitNeverBeginsIt() throws Exception {
    // Its work ignores the interrupt (as a blocking socket write does) and tries to go on.
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Throwable> nextStep = new CompletableFuture<>();
    AtomicBoolean committed = new AtomicBoolean();
    assertThatThrownBy(
            () ->
                calls.copy(
                    "segment-f",
                    "copy",
                    steps -> {
                      steps.accept(CopyStep.WRITE_SIDECAR);
                      awaitUninterruptibly(release);
                      try {
                        steps.accept(CopyStep.COMMIT);
                        committed.set(true);
                      } catch (RuntimeException e) {
                        nextStep.complete(e);
                        throw e;
                      }
                      return null;
                    }))
        .isInstanceOf(CallTimeoutException.class);
    release.countDown();
    assertThat(nextStep.get(5, TimeUnit.SECONDS))
        .isInstanceOf(java.util.concurrent.CancellationException.class)
        .hasMessageContaining("was given up before committing");
    assertThat(committed).isFalse();
  }

  @Test
  void aResultThatArrivesAfterTheCallWasGivenUpIsClosed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Closeable stream = closed::countDown;
    assertThatThrownBy(
            () ->
                calls.call(
                    null,
                    "fetch",
                    "opening",
                    steps -> {
                      awaitUninterruptibly(release);
                      return stream;
                    }))
        .isInstanceOf(CallTimeoutException.class);
    release.countDown();
    assertThat(await(closed)).as("nobody reads the late stream: it is closed").isTrue();
  }

  @Test
  void closeLetsRunningWorkEndAndRefusesNewCalls() throws Exception {
    BoundedCalls closing = new BoundedCalls(OPERATION_MS, COPY_MS, Throwable::toString, 3);
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<Object> running =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return closing.call(
                    null,
                    "fetch",
                    "opening",
                    steps -> {
                      started.countDown();
                      new CountDownLatch(1).await();
                      return null;
                    });
              } catch (Exception e) {
                return e;
              }
            });
    assertThat(await(started)).isTrue();
    closing.close();
    assertThat(closing.running()).as("work left running after close").isZero();
    assertThat(running.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    assertThatThrownBy(() -> closing.call(null, "fetch", "opening", steps -> null))
        .isInstanceOf(CallCancelledException.class)
        .hasMessageContaining("the plugin is closed");
  }

  private static boolean await(CountDownLatch latch) throws InterruptedException {
    return latch.await(5, TimeUnit.SECONDS);
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        latch.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static long elapsedMs(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }
}
