package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadAheadTest {
  private static final long WAIT = TimeUnit.SECONDS.toNanos(30);

  private final ExecutorService executor = Executors.newCachedThreadPool();

  @AfterEach
  void stop() throws InterruptedException {
    executor.shutdownNow();
    assertThat(executor.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
  }

  @Test
  void everyElementReachesTheSinkInOrderOnTheCallersThread() {
    Thread caller = Thread.currentThread();
    List<Integer> seen = new ArrayList<>();
    AtomicReference<Thread> sourceThread = new AtomicReference<>();
    long result =
        ReadAhead.run(
            executor,
            (Consumer<List<Integer>> batches) -> {
              sourceThread.set(Thread.currentThread());
              for (int b = 0; b < 50; b++) {
                batches.accept(List.of(3 * b, 3 * b + 1, 3 * b + 2));
              }
              return 150L;
            },
            i -> {
              assertThat(Thread.currentThread()).isSameAs(caller);
              seen.add(i);
            },
            WAIT,
            () -> new IllegalStateException("timed out"));
    assertThat(result).isEqualTo(150L);
    assertThat(seen).hasSize(150);
    for (int i = 0; i < seen.size(); i++) {
      assertThat(seen.get(i)).isEqualTo(i);
    }
    assertThat(sourceThread.get()).isNotSameAs(caller);
  }

  @Test
  void theSourcesFailureReachesTheCallerAfterWhatCameBefore() {
    List<Integer> seen = new ArrayList<>();
    assertThatThrownBy(
            () ->
                ReadAhead.run(
                    executor,
                    (Consumer<List<Integer>> batches) -> {
                      batches.accept(List.of(1, 2));
                      throw new IllegalStateException("Kafka went away");
                    },
                    seen::add,
                    WAIT,
                    () -> new IllegalStateException("timed out")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Kafka went away");
    assertThat(seen).containsExactly(1, 2);
  }

  @Test
  void aFailingSinkStopsTheSourceAtItsNextBatch() throws InterruptedException {
    AtomicInteger handed = new AtomicInteger();
    Watched source =
        new Watched(
            batches -> {
              while (true) {
                batches.accept(List.of(handed.incrementAndGet()));
              }
            });
    assertThatThrownBy(
            () ->
                ReadAhead.run(
                    executor,
                    source,
                    i -> {
                      throw new IllegalArgumentException("cannot write " + i);
                    },
                    WAIT,
                    () -> new IllegalStateException("timed out")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot write 1");
    assertThat(source.ended.await(1, TimeUnit.MINUTES)).isTrue();
    assertThat(source.failure.get()).isInstanceOf(ReadAhead.Stopped.class);
    // at most the queue's depth, the batch being offered and the first one taken
    assertThat(handed.get()).isLessThanOrEqualTo(ReadAhead.DEPTH + 2);
  }

  @Test
  void aSourceThatGivesNothingIsGivenUpAfterTheWaitAndStopped() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    Watched source =
        new Watched(
            batches -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              for (int i = 0; i <= ReadAhead.DEPTH; i++) {
                batches.accept(List.of(i));
              }
              return 1L;
            });
    assertThatThrownBy(
            () ->
                ReadAhead.run(
                    executor,
                    source,
                    i -> {},
                    TimeUnit.MILLISECONDS.toNanos(200),
                    () -> new IllegalStateException("timed out")))
        .hasMessage("timed out");
    // The late source fills the queue, then learns that nobody takes its batches: it ends.
    release.countDown();
    assertThat(source.ended.await(1, TimeUnit.MINUTES)).isTrue();
    assertThat(source.failure.get()).isInstanceOf(ReadAhead.Stopped.class);
  }

  /** A source that records the failure it ended with, and when it ended. */
  private static final class Watched implements Function<Consumer<List<Integer>>, Long> {
    final CountDownLatch ended = new CountDownLatch(1);
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Function<Consumer<List<Integer>>, Long> source;

    Watched(Function<Consumer<List<Integer>>, Long> source) {
      this.source = source;
    }

    @Override
    public Long apply(Consumer<List<Integer>> batches) {
      try {
        return source.apply(batches);
      } catch (RuntimeException e) {
        failure.set(e);
        throw e;
      } finally {
        ended.countDown();
      }
    }
  }
}
