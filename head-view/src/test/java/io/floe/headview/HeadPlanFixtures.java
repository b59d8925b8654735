package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.headview.HeadPlanner.Cached;
import io.floe.headview.HeadPlanner.TableShape;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import io.floe.headview.HeadWriter.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;

/** Cached heads, head files and the exactly-once check that {@link HeadPlannerTest} plans with. */
final class HeadPlanFixtures {
  static final TableShape SHAPE =
      new TableShape("table-uuid", 0, 0, Map.of(0, PartitionSpec.unpartitioned()));

  private HeadPlanFixtures() {}

  /**
   * Every offset of {@code expected} (per partition, a list of contiguous offsets) is served once:
   * by a carried file (the cached head's files an extension keeps), a kept file or a read, and no
   * other offset is.
   */
  static void assertServesExactly(
      HeadPlan plan, List<HeadFile> carried, Map<Integer, List<Long>> expected) {
    Map<Integer, List<Long>> served = new TreeMap<>();
    List<HeadFile> files = new ArrayList<>(carried);
    files.addAll(plan.kept());
    for (HeadPlan.Trim t : plan.trimmed()) {
      Span span = t.file().offsets().get(t.partition());
      assertThat(t.cut())
          .as("a trim cuts inside its file")
          .isBetween(span.first() + 1, span.last());
      files.add(
          new HeadFile(t.file().file(), Map.of(t.partition(), new Span(t.cut(), span.last()))));
    }
    for (HeadFile f : files) {
      f.offsets()
          .forEach(
              (p, span) ->
                  served
                      .computeIfAbsent(p, x -> new ArrayList<>())
                      .addAll(range(span.first(), span.last() + 1)));
    }
    for (Ranges r : plan.reads()) {
      r.from()
          .forEach(
              (p, start) ->
                  served
                      .computeIfAbsent(p, x -> new ArrayList<>())
                      .addAll(range(start, r.to().getOrDefault(p, start))));
    }
    served.values().removeIf(List::isEmpty);
    served.values().forEach(list -> list.sort(null));
    assertThat(served).as("offsets served, each once").isEqualTo(expected);
  }

  static List<Long> range(long from, long to) {
    return LongStream.range(from, Math.max(from, to)).boxed().toList();
  }

  static Cached cached(
      String location,
      int headSnapshots,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      List<HeadFile> files) {
    return new Cached(location, SHAPE, headSnapshots, from, to, files);
  }

  static HeadFile file(String name, int partition, long first, long last) {
    return file(name, Map.of(partition, new Span(first, last)));
  }

  static HeadFile file(String name, Map<Integer, Span> offsets) {
    return new HeadFile(dataFile(name), offsets);
  }

  static DataFile dataFile(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath("memory:/head/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1)
        .withRecordCount(1)
        .build();
  }
}
