package io.floe.headview;

import static io.floe.headview.HeadPlanFixtures.SHAPE;
import static io.floe.headview.HeadPlanFixtures.assertServesExactly;
import static io.floe.headview.HeadPlanFixtures.cached;
import static io.floe.headview.HeadPlanFixtures.dataFile;
import static io.floe.headview.HeadPlanFixtures.file;
import static io.floe.headview.HeadPlanFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.headview.HeadPlan.Action;
import io.floe.headview.HeadPlanner.Cached;
import io.floe.headview.HeadPlanner.Found;
import io.floe.headview.HeadPlanner.TableShape;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import io.floe.headview.HeadWriter.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The head view's decision without a broker or a catalog: what a load reuses, reads and keeps. Each
 * plan that writes is also checked to serve every offset from the boundary to the last stable
 * offset exactly once (the files here hold contiguous offsets, as they do without transactions).
 */
class HeadPlannerTest {
  /** Counts how often a plan asks for the new shape (it builds metadata: only rebuilds may). */
  private final AtomicInteger shapeAsked = new AtomicInteger();

  @Test
  void aFirstLoadReadsFromTheBoundaryToTheLastStableOffset() {
    HeadPlan plan =
        HeadPlanner.plan(
            null,
            found(
                "m1",
                Map.of(0, 20L, 1, 20L),
                Map.of(0, 0L, 1, 0L, 2, 0L),
                Map.of(0, 50L, 1, 50L, 2, 0L)));

    assertThat(plan.action()).isEqualTo(Action.REBUILD);
    assertThat(plan.from()).isEqualTo(Map.of(0, 20L, 1, 20L, 2, 0L));
    assertThat(plan.to()).isEqualTo(Map.of(0, 50L, 1, 50L, 2, 0L));
    assertThat(plan.reads()).containsExactly(new Ranges(plan.from(), plan.to()));
    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).isEmpty();
    assertThat(plan.offsetsSummary()).isEqualTo("0:20-49,1:20-49");
    assertThat(shapeAsked).hasValue(0);
    assertServesExactly(plan, List.of(), Map.of(0, range(20, 50), 1, range(20, 50)));
  }

  @Test
  void theLogStartWinsOverABoundaryBelowIt() {
    // Retention deleted records never tiered (or a partition nothing was tiered of yet): the head
    // starts where Kafka's log does.
    HeadPlan plan =
        HeadPlanner.plan(
            null, found("m1", Map.of(0, 10L), Map.of(0, 30L, 1, 5L), Map.of(0, 50L, 1, 9L)));

    assertThat(plan.from()).isEqualTo(Map.of(0, 30L, 1, 5L));
    assertThat(plan.offsetsSummary()).isEqualTo("0:30-49,1:5-8");
  }

  @Test
  void nothingNewReusesTheHeadAsItIs() {
    Cached cached = cached("m1", 1, Map.of(0, 20L), Map.of(0, 50L), List.of(file("a", 0, 20, 49)));

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m1", Map.of(0, 20L), Map.of(0, 0L), lso(0, 50)));

    assertThat(plan.action()).isEqualTo(Action.REUSE);
    assertThat(plan.reads()).isEmpty();
    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).isEmpty();
    assertThat(plan.to()).isEqualTo(Map.of(0, 50L));
    assertThat(shapeAsked).hasValue(0);
  }

  @Test
  void aStagedTableWithoutMetadataLocationIsTheSameBaseEveryTime() {
    Cached cached = cached(null, 0, Map.of(0, 0L), Map.of(0, 5L), List.of(file("a", 0, 0, 4)));

    assertThat(HeadPlanner.plan(cached, found(null, Map.of(), Map.of(0, 0L), lso(0, 5))).action())
        .isEqualTo(Action.REUSE);
    assertThat(HeadPlanner.plan(cached, found(null, Map.of(), Map.of(0, 0L), lso(0, 9))).action())
        .isEqualTo(Action.EXTEND);
  }

  @Test
  void newRecordsOnlyExtendTheHeadWithExactlyTheNewRanges() {
    List<HeadFile> files = List.of(file("a", 0, 20, 49), file("b", 1, 20, 49));
    Cached cached = cached("m1", 1, Map.of(0, 20L, 1, 20L), Map.of(0, 50L, 1, 50L), files);

    HeadPlan plan =
        HeadPlanner.plan(
            cached,
            found("m1", Map.of(0, 20L, 1, 20L), Map.of(0, 0L, 1, 0L), Map.of(0, 80L, 1, 50L)));

    assertThat(plan.action()).isEqualTo(Action.EXTEND);
    assertThat(plan.from()).as("the head still starts where it did").isEqualTo(cached.from());
    assertThat(plan.appendFrom()).isEqualTo(Map.of(0, 50L, 1, 50L));
    assertThat(plan.reads())
        .containsExactly(new Ranges(Map.of(0, 50L, 1, 50L), Map.of(0, 80L, 1, 50L)));
    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).isEmpty();
    assertThat(plan.offsetsSummary()).isEqualTo("0:50-79");
    assertThat(shapeAsked).hasValue(0);
    assertServesExactly(plan, files, Map.of(0, range(20, 80), 1, range(20, 50)));
  }

  @Test
  void aPartitionAddedToTheTopicIsReadFromItsStart() {
    List<HeadFile> files = List.of(file("a", 0, 0, 49));
    Cached cached = cached("m1", 1, Map.of(0, 0L), Map.of(0, 50L), files);

    HeadPlan plan =
        HeadPlanner.plan(
            cached, found("m1", Map.of(), Map.of(0, 0L, 1, 0L), Map.of(0, 60L, 1, 7L)));

    assertThat(plan.action()).isEqualTo(Action.EXTEND);
    assertThat(plan.reads())
        .containsExactly(new Ranges(Map.of(0, 50L, 1, 0L), Map.of(0, 60L, 1, 7L)));
    assertThat(plan.offsetsSummary()).isEqualTo("0:50-59,1:0-6");
    assertServesExactly(plan, files, Map.of(0, range(0, 60), 1, range(0, 7)));
  }

  @Test
  void pastMaxHeadSnapshotsTheHeadIsRebuiltAsOneSnapshotOverTheSameFiles() {
    List<HeadFile> files = new ArrayList<>();
    for (int i = 0; i < HeadPlanner.MAX_HEAD_SNAPSHOTS; i++) {
      files.add(file("f" + i, 0, i * 10L, i * 10L + 9));
    }
    long end = HeadPlanner.MAX_HEAD_SNAPSHOTS * 10L;
    Cached cached = cached("m1", HeadPlanner.MAX_HEAD_SNAPSHOTS, Map.of(0, 0L), lso(0, end), files);

    HeadPlan plan = HeadPlanner.plan(cached, found("m1", Map.of(), Map.of(0, 0L), lso(0, end + 5)));

    assertThat(plan.action()).isEqualTo(Action.REBUILD);
    assertThat(plan.kept()).isEqualTo(files);
    assertThat(plan.dropped()).isEmpty();
    assertThat(plan.reads())
        .containsExactly(
            new Ranges(Map.of(0, 0L), Map.of(0, 0L), true),
            new Ranges(Map.of(0, end), Map.of(0, end + 5)));
    assertThat(plan.offsetsSummary()).isEqualTo("0:0-" + (end + 4));
    assertServesExactly(plan, List.of(), Map.of(0, range(0, end + 5)));

    // One snapshot fewer: extended as usual.
    Cached younger =
        cached("m1", HeadPlanner.MAX_HEAD_SNAPSHOTS - 1, Map.of(0, 0L), lso(0, end), files);
    assertThat(
            HeadPlanner.plan(younger, found("m1", Map.of(), Map.of(0, 0L), lso(0, end + 5)))
                .action())
        .isEqualTo(Action.EXTEND);
  }

  @Test
  void aTierCommitPastPartOfTheHeadKeepsTheFilesPastItAndTrimsTheStraddlingOne() {
    HeadFile below = file("below", 0, 20, 39);
    HeadFile straddling = file("straddling", 0, 40, 59);
    HeadFile past = file("past", 0, 60, 79);
    Cached cached =
        cached("m1", 3, Map.of(0, 20L), Map.of(0, 80L), List.of(below, straddling, past));

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m2", Map.of(0, 45L), Map.of(0, 0L), lso(0, 90)));

    assertThat(plan.action()).isEqualTo(Action.REBUILD);
    assertThat(plan.kept()).containsExactly(past);
    assertThat(plan.trimmed()).containsExactly(new HeadPlan.Trim(straddling, 0, 45));
    assertThat(plan.dropped()).containsExactly(below);
    assertThat(plan.reads())
        .as("nothing read again")
        .containsExactly(
            new Ranges(Map.of(0, 45L), Map.of(0, 45L), true),
            new Ranges(Map.of(0, 80L), Map.of(0, 90L)));
    assertThat(plan.offsetsSummary()).isEqualTo("0:45-89");
    assertThat(shapeAsked).hasValue(1);
    assertServesExactly(plan, List.of(), Map.of(0, range(45, 90)));
  }

  @Test
  void aFileWhollyBelowTheNewBoundaryIsDroppedAndNothingIsReadAgain() {
    HeadFile below = file("below", 0, 20, 59);
    HeadFile past = file("past", 0, 60, 79);
    Cached cached = cached("m1", 2, Map.of(0, 20L), Map.of(0, 80L), List.of(below, past));

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m2", Map.of(0, 60L), Map.of(0, 0L), lso(0, 80)));

    assertThat(plan.kept()).containsExactly(past);
    assertThat(plan.dropped()).containsExactly(below);
    assertThat(plan.reads())
        .containsExactly(
            new Ranges(Map.of(0, 60L), Map.of(0, 60L), true),
            new Ranges(Map.of(0, 80L), Map.of(0, 80L)));
    assertServesExactly(plan, List.of(), Map.of(0, range(60, 80)));
  }

  @Test
  void aTierCommitPastTheWholeHeadDropsEveryFile() {
    List<HeadFile> files = List.of(file("a", 0, 20, 49), file("b", 0, 50, 79));
    Cached cached = cached("m1", 2, Map.of(0, 20L), Map.of(0, 80L), files);

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m2", Map.of(0, 85L), Map.of(0, 0L), lso(0, 90)));

    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).isEqualTo(files);
    assertThat(plan.offsetsSummary()).isEqualTo("0:85-89");
    assertServesExactly(plan, List.of(), Map.of(0, range(85, 90)));
  }

  @Test
  void aSharedFileBelowTheBoundaryMovesTheCutOfEveryPartitionInIt() {
    // A first build per partition, then one small increment over three partitions in one file;
    // partition 0 is tiered up to 25, inside the shared file.
    HeadFile p0 = file("p0", 0, 0, 19);
    HeadFile p1 = file("p1", 1, 0, 19);
    HeadFile p2 = file("p2", 2, 0, 19);
    HeadFile shared =
        file("shared", Map.of(0, new Span(20, 29), 1, new Span(20, 29), 2, new Span(20, 29)));
    Map<Integer, Long> zero = Map.of(0, 0L, 1, 0L, 2, 0L);
    Map<Integer, Long> thirty = Map.of(0, 30L, 1, 30L, 2, 30L);
    Cached cached = cached("m1", 2, zero, thirty, List.of(p0, p1, p2, shared));

    HeadPlan plan = HeadPlanner.plan(cached, found("m2", Map.of(0, 25L), zero, thirty));

    // The shared file goes, so every partition's cut moves to 30, so p1 and p2 go too.
    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).containsExactly(p0, p1, p2, shared);
    assertThat(plan.reads())
        .containsExactly(
            new Ranges(Map.of(0, 25L, 1, 0L, 2, 0L), thirty, true), new Ranges(thirty, thirty));
    assertThat(plan.offsetsSummary()).isEqualTo("0:25-29,1:0-29,2:0-29");
    assertServesExactly(
        plan, List.of(), Map.of(0, range(25, 30), 1, range(0, 30), 2, range(0, 30)));

    // Tiered up to 20 only: the shared file lies wholly past every cut and stays, with p1 and p2.
    HeadPlan up20 = HeadPlanner.plan(cached, found("m2", Map.of(0, 20L), zero, thirty));
    assertThat(up20.kept()).containsExactly(p1, p2, shared);
    assertThat(up20.dropped()).containsExactly(p0);
    assertServesExactly(
        up20, List.of(), Map.of(0, range(20, 30), 1, range(0, 30), 2, range(0, 30)));
  }

  @Test
  void aStraddlingFileOfOnePartitionIsTrimmedAtTheCutADroppedSharedFileMoved() {
    // Partition 0 tiered to 15: the shared file (p0 10..19, p1 10..19) is dropped, which moves p0's
    // cut to 20 and p1's to 20; p0's file 16..29 is trimmed at 20, p1's file 20..29 stays whole,
    // and p0's 15..19 and p1's 10..19 are read again.
    HeadFile shared = file("shared", Map.of(0, new Span(10, 19), 1, new Span(10, 19)));
    HeadFile p0 = file("p0", 0, 16, 29);
    HeadFile p1 = file("p1", 1, 20, 29);
    HeadFile p0below = file("p0below", 0, 10, 14);
    Cached cached =
        cached(
            "m1",
            2,
            Map.of(0, 10L, 1, 10L),
            Map.of(0, 30L, 1, 30L),
            List.of(p0below, shared, p0, p1));

    HeadPlan plan =
        HeadPlanner.plan(
            cached,
            found("m2", Map.of(0, 15L, 1, 10L), Map.of(0, 0L, 1, 0L), Map.of(0, 30L, 1, 30L)));

    assertThat(plan.kept()).containsExactly(p1);
    assertThat(plan.trimmed()).containsExactly(new HeadPlan.Trim(p0, 0, 20));
    assertThat(plan.dropped()).containsExactly(p0below, shared);
    assertServesExactly(plan, List.of(), Map.of(0, range(15, 30), 1, range(10, 30)));
  }

  @Test
  void aPartitionAddedWithATierCommitIsReadWhole() {
    HeadFile a = file("a", 0, 20, 49);
    Cached cached = cached("m1", 1, Map.of(0, 20L), Map.of(0, 50L), List.of(a));

    HeadPlan plan =
        HeadPlanner.plan(
            cached, found("m2", Map.of(0, 30L), Map.of(0, 0L, 1, 0L), Map.of(0, 50L, 1, 12L)));

    assertThat(plan.action()).isEqualTo(Action.REBUILD);
    assertThat(plan.trimmed()).containsExactly(new HeadPlan.Trim(a, 0, 30));
    assertThat(plan.dropped()).isEmpty();
    assertThat(plan.offsetsSummary()).isEqualTo("0:30-49,1:0-11");
    assertServesExactly(plan, List.of(), Map.of(0, range(30, 50), 1, range(0, 12)));
  }

  @Test
  void aBoundaryThatWentBackRebuildsEverything() {
    // The committed table was rolled back below where the cached head starts.
    List<HeadFile> files = List.of(file("a", 0, 20, 49));
    Cached cached = cached("m1", 1, Map.of(0, 20L), Map.of(0, 50L), files);

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m0", Map.of(0, 10L), Map.of(0, 0L), lso(0, 50)));

    assertFullRebuild(plan, files, Map.of(0, 10L), Map.of(0, 50L));
    assertThat(shapeAsked).as("decided on the offsets alone").hasValue(0);
  }

  @Test
  void aTruncatedKafkaLogRebuildsEverything() {
    List<HeadFile> files = List.of(file("a", 0, 20, 49));
    Cached cached = cached("m1", 1, Map.of(0, 20L), Map.of(0, 50L), files);

    // Same committed metadata, last stable offset lower (an unclean leader election).
    assertFullRebuild(
        HeadPlanner.plan(cached, found("m1", Map.of(0, 20L), Map.of(0, 0L), lso(0, 40))),
        files,
        Map.of(0, 20L),
        Map.of(0, 40L));
    // The table moved on as well.
    assertFullRebuild(
        HeadPlanner.plan(cached, found("m2", Map.of(0, 30L), Map.of(0, 0L), lso(0, 40))),
        files,
        Map.of(0, 30L),
        Map.of(0, 40L));
  }

  @Test
  void aPartitionGoneFromKafkaRebuildsEverything() {
    List<HeadFile> files = List.of(file("a", 0, 0, 9), file("b", 1, 0, 9));
    Cached cached = cached("m1", 1, Map.of(0, 0L, 1, 0L), Map.of(0, 10L, 1, 10L), files);

    assertFullRebuild(
        HeadPlanner.plan(cached, found("m1", Map.of(), Map.of(0, 0L), lso(0, 12))),
        files,
        Map.of(0, 0L),
        Map.of(0, 12L));
  }

  @Test
  void aTableOfAnotherShapeRebuildsEverything() {
    List<HeadFile> files = List.of(file("a", 0, 20, 49));
    Cached cached = cached("m1", 1, Map.of(0, 20L), Map.of(0, 50L), files);
    for (TableShape other :
        List.of(
            new TableShape("recreated", 0, 0, SHAPE.specs()),
            new TableShape(SHAPE.uuid(), 1, 0, SHAPE.specs()),
            new TableShape(SHAPE.uuid(), 0, 1, SHAPE.specs()),
            new TableShape(SHAPE.uuid(), 0, 0, Map.of()))) {
      Found found =
          new Found("m2", () -> other, Map.of(0, 30L), List.of(0), Map.of(0, 0L), lso(0, 60));
      assertFullRebuild(HeadPlanner.plan(cached, found), files, Map.of(0, 30L), Map.of(0, 60L));
    }
  }

  @Test
  void aFileWithUnknownOffsetsMakesTheRebuildReadEverythingAgain() {
    HeadFile known = file("known", 0, 20, 49);
    HeadFile unknown = new HeadFile(dataFile("unknown"), null);
    Cached cached = cached("m1", 2, Map.of(0, 20L), Map.of(0, 60L), List.of(known, unknown));

    HeadPlan plan =
        HeadPlanner.plan(cached, found("m2", Map.of(0, 30L), Map.of(0, 0L), lso(0, 70)));

    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).containsExactly(known, unknown);
    // Read as records read again: never into a file shared by several partitions.
    assertThat(plan.reads().get(0)).isEqualTo(new Ranges(Map.of(0, 30L), Map.of(0, 70L), true));
    assertServesExactly(plan, List.of(), Map.of(0, range(30, 70)));
  }

  @Test
  void theOffsetsSummaryNamesEachPartitionWithOffsetsInOrder() {
    HeadPlan plan =
        HeadPlanner.plan(
            null,
            found(
                "m1",
                Map.of(10, 3L, 2, 7L),
                Map.of(10, 0L, 2, 0L, 1, 0L),
                Map.of(10, 5L, 2, 7L, 1, 1L)));

    assertThat(plan.offsetsSummary()).isEqualTo("1:0-0,10:3-4");
  }

  private void assertFullRebuild(
      HeadPlan plan, List<HeadFile> cachedFiles, Map<Integer, Long> from, Map<Integer, Long> to) {
    assertThat(plan.action()).isEqualTo(Action.REBUILD);
    assertThat(plan.from()).isEqualTo(from);
    assertThat(plan.to()).isEqualTo(to);
    assertThat(plan.kept()).isEmpty();
    assertThat(plan.dropped()).isEqualTo(cachedFiles);
    assertThat(plan.reads()).containsExactly(new Ranges(from, to));
  }

  private static Map<Integer, Long> lso(int partition, long offset) {
    return Map.of(partition, offset);
  }

  /** A load that found the committed metadata at {@code location}, of {@link #SHAPE}. */
  private Found found(
      String location,
      Map<Integer, Long> committedEnds,
      Map<Integer, Long> logStarts,
      Map<Integer, Long> lastStable) {
    Supplier<TableShape> shape =
        () -> {
          shapeAsked.incrementAndGet();
          return SHAPE;
        };
    List<Integer> partitions = new ArrayList<>(new TreeMap<>(lastStable).keySet());
    return new Found(location, shape, committedEnds, partitions, logStarts, lastStable);
  }
}
