package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.copy.AbortedTransaction;
import io.floe.copy.RowRange;
import io.floe.copy.WrittenSegment;
import io.floe.format.OffsetRange;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.PayloadCounts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

/** The planner against committed files held in memory: no catalog, no storage. */
class CommitPlannerTest {
  private static final PartitionSpec SPEC = PartitionSpec.unpartitioned();
  private static final long PRODUCER = 7;
  private static final long OTHER_PRODUCER = 8;

  private final Files files = new Files();

  @Test
  void hidesEveryRowOfTheFilesInsideTheSegmentAndRemovesNothing() {
    // An earlier attempt of the same offsets, or another copy wholly inside them: its rows are
    // hidden, its file stays (its segment may still be served from it).
    DataFile first = files.add(0, 100, 149);
    DataFile second = files.add(0, 150, 199);

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactlyInAnyOrder(
            new RowRange(first.location(), first.partition(), 0, 50),
            new RowRange(second.location(), second.partition(), 0, 50));
    assertThat(plan.overlappedFiles()).isEqualTo(2);
    assertThat(plan.abortedRows()).isEmpty();
  }

  @Test
  void aFileListedTwiceIsHiddenOnce() {
    DataFile file = files.add(0, 100, 149);
    files.add(0, file, new OffsetRange(100, 149));

    assertThat(plan(segment(0, 100, 199), List.of()).overlappedRows())
        .containsExactly(new RowRange(file.location(), file.partition(), 0, 50));
  }

  @Test
  void hidesTheRowsInsideTheSegmentOfAFileItCoversOnlyInPart() {
    // Another replica's copy: offsets 80..109 (rows 0..29) and 180..220 (rows 0..40).
    DataFile below = files.add(0, 80, 109);
    DataFile above = files.add(0, 180, 220);
    DataFile inside = files.add(0, 110, 179);

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactlyInAnyOrder(
            new RowRange(below.location(), below.partition(), 20, 10),
            new RowRange(inside.location(), inside.partition(), 0, 70),
            new RowRange(above.location(), above.partition(), 0, 20));
    assertThat(plan.overlappedFiles()).isEqualTo(3);
    assertThat(plan.referencedFiles())
        .containsExactlyInAnyOrder(above.location(), below.location(), inside.location());
    assertThat(plan.abortedRows()).isEmpty();
  }

  @Test
  void aFileThatHoldsTheWholeSegmentAndMoreHasOnlyThoseRowsHidden() {
    DataFile wide = files.add(0, 0, 999);

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactly(new RowRange(wide.location(), wide.partition(), 100, 100));
  }

  @Test
  void aFileWithoutOffsetBoundsIsReadToFindItsRowsInsideTheSegment() {
    // No bounds in its metadata: its rows (offsets 150..249) are read.
    DataFile unbounded = file("no-bounds");
    files.addWithoutBounds(0, unbounded, 150, filled(100, OTHER_PRODUCER));

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactly(new RowRange(unbounded.location(), unbounded.partition(), 0, 50));
  }

  @Test
  void aFileOfSeveralPartitionsHasOnlyTheSegmentsPartitionsRowsHidden() {
    // An engine's file across partitions: rows 0..49 are partition 1's offsets 100..149, rows
    // 50..99 partition 0's. Its offset bounds lie inside the segment, but the whole file is not
    // partition 0's.
    DataFile mixed = file("across", 100);
    int[] rowPartitions = new int[100];
    Arrays.fill(rowPartitions, 0, 50, 1);
    files.addAcrossPartitions(mixed, new OffsetRange(100, 149), rowPartitions);

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactly(new RowRange(mixed.location(), mixed.partition(), 50, 50));
  }

  @Test
  void keepsTheFilesOfOtherPartitions() {
    DataFile mine = files.add(0, 100, 199);
    files.add(1, 100, 199);
    files.add(1, 50, 250);

    CommitPlan plan = plan(segment(0, 100, 199), List.of());

    assertThat(plan.overlappedRows())
        .containsExactly(new RowRange(mine.location(), mine.partition(), 0, 100));
    assertThat(files.askedPartitions).containsOnly(0);
  }

  @Test
  void anEmptySegmentHidesNothing() {
    files.add(0, 100, 100);

    CommitPlan plan = plan(segment(0, 100, 99), List.of());

    assertThat(plan.overlappedRows()).isEmpty();
    assertThat(files.askedPartitions).isEmpty();
  }

  @Test
  void hidesTheEarlierRowsOfTransactionsTheSegmentAborts() {
    // Offsets 90..99, row positions 0..9: the aborted producer's rows are at 1-3, 5 and 8-9.
    DataFile earlier =
        files.add(
            0,
            90,
            99,
            new long[] {
              OTHER_PRODUCER,
              PRODUCER,
              PRODUCER,
              PRODUCER,
              OTHER_PRODUCER,
              PRODUCER,
              OTHER_PRODUCER,
              OTHER_PRODUCER,
              PRODUCER,
              PRODUCER
            });
    // Offsets 80..89 of the same producer, before the transaction began.
    files.add(0, 80, 89, filled(10, PRODUCER));

    CommitPlan plan =
        plan(
            segment(0, 100, 149),
            List.of(
                new AbortedTransaction(PRODUCER, 91, 120),
                new AbortedTransaction(OTHER_PRODUCER, 100, 110)));

    assertThat(plan.abortedRows())
        .containsExactly(
            new RowRange(earlier.location(), earlier.partition(), 1, 3),
            new RowRange(earlier.location(), earlier.partition(), 5, 1),
            new RowRange(earlier.location(), earlier.partition(), 8, 2));
  }

  @Test
  void hidesOnlyRowsBeforeTheSegment() {
    files.add(0, 100, 109, filled(10, PRODUCER));
    DataFile before = files.add(0, 95, 99, filled(5, PRODUCER));

    CommitPlan plan =
        plan(segment(0, 100, 149), List.of(new AbortedTransaction(PRODUCER, 97, 105)));

    assertThat(plan.abortedRows())
        .containsExactly(new RowRange(before.location(), before.partition(), 2, 3));
  }

  private CommitPlan plan(WrittenSegment segment, List<AbortedTransaction> aborted) {
    return new CommitPlanner(files).plan(segment, aborted);
  }

  private static WrittenSegment segment(int partition, long base, long last) {
    return new WrittenSegment(
        partition,
        base,
        last,
        List.of(),
        List.of(),
        new BatchDirectory(List.of()),
        0,
        0,
        0,
        PayloadCounts.NONE);
  }

  private static long[] filled(int n, long producer) {
    long[] out = new long[n];
    Arrays.fill(out, producer);
    return out;
  }

  private static DataFile file(String name) {
    return file(name, 1);
  }

  private static DataFile file(String name, long records) {
    return DataFiles.builder(SPEC)
        .withPath("mem://table/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(records)
        .build();
  }

  /** Committed files in memory, found by partition and offset bounds as a table scan finds them. */
  private static final class Files implements CommittedFiles {
    /**
     * A file, its partition and bounds as its metadata tells them (null: none), and its rows from
     * firstRow (rowPartitions: each row's partition when the rows are of several).
     */
    private record Held(
        Integer partition,
        DataFile file,
        OffsetRange bounds,
        long firstRow,
        long[] producers,
        int[] rowPartitions) {
      Held(Integer partition, DataFile file, OffsetRange bounds, long firstRow, long[] producers) {
        this(partition, file, bounds, firstRow, producers, null);
      }
    }

    final List<Held> held = new ArrayList<>();
    final List<Integer> askedPartitions = new ArrayList<>();

    DataFile add(int partition, long first, long last) {
      return add(partition, first, last, filled((int) (last - first + 1), OTHER_PRODUCER));
    }

    DataFile add(int partition, long first, long last, long[] producers) {
      DataFile file = file("p" + partition + "-" + first + "-" + last, producers.length);
      held.add(new Held(partition, file, new OffsetRange(first, last), first, producers));
      return file;
    }

    void add(int partition, DataFile file, OffsetRange bounds) {
      held.add(new Held(partition, file, bounds, bounds.first(), new long[0]));
    }

    void addWithoutBounds(int partition, DataFile file, long firstRow, long[] producers) {
      held.add(new Held(partition, file, null, firstRow, producers));
    }

    /**
     * A file whose metadata tells its offset bounds but not its partition: its rows are of {@code
     * rowPartitions}, each partition's offsets counting from the bounds' first.
     */
    void addAcrossPartitions(DataFile file, OffsetRange bounds, int[] rowPartitions) {
      held.add(
          new Held(
              null,
              file,
              bounds,
              bounds.first(),
              filled(rowPartitions.length, OTHER_PRODUCER),
              rowPartitions));
    }

    @Override
    public List<DataFile> inRange(int partition, long from, long to) {
      askedPartitions.add(partition);
      List<DataFile> out = new ArrayList<>();
      for (Held h : held) {
        boolean mayHold =
            h.bounds() == null || (h.bounds().first() <= to && from <= h.bounds().last());
        if ((h.partition() == null || h.partition() == partition) && mayHold) {
          out.add(h.file());
        }
      }
      return out;
    }

    @Override
    public OffsetRange boundsOf(DataFile file) {
      return held.stream().filter(h -> h.file() == file).findFirst().orElseThrow().bounds();
    }

    @Override
    public Integer partitionOf(DataFile file) {
      return held.stream().filter(h -> h.file() == file).findFirst().orElseThrow().partition();
    }

    @Override
    public void readRows(DataFile file, RowVisitor visitor) {
      Held h = held.stream().filter(x -> x.file() == file).findFirst().orElseThrow();
      if (h.rowPartitions() == null) {
        for (int i = 0; i < h.producers().length; i++) {
          visitor.row(h.partition(), h.firstRow() + i, h.producers()[i]);
        }
        return;
      }
      Map<Integer, Long> next = new HashMap<>();
      for (int i = 0; i < h.rowPartitions().length; i++) {
        int partition = h.rowPartitions()[i];
        long offset = next.merge(partition, 1L, Long::sum) - 1 + h.firstRow();
        visitor.row(partition, offset, h.producers()[i]);
      }
    }
  }
}
