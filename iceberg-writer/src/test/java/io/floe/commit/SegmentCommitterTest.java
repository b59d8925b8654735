package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.OffsetRange;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Removing a deleted segment's rows races the other brokers' commits into the same table (each
 * leads other partitions, and retention runs on all of them at once); the removal that loses plans
 * again and commits, as copies do.
 */
class SegmentCommitterTest {
  private static final String TOPIC = "orders";
  private static final String TOPIC_ID = "Wm3QkZ1sRkq8hD3wN0bX5g";

  @TempDir Path dir;

  @Test
  void aRemovalThatLosesTheRaceToAnotherCommitPlansAgainAndCommits() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Removal removal = copyOneSegment(f);
      AtomicInteger commits = new AtomicInteger();
      Table racing = racingOnFirstCommit(f, removal.table(), commits);

      Set<String> removed =
          new SegmentCommitter(3, 10, 100)
              .remove(
                  racing,
                  new SegmentRemoval.Target(TOPIC_ID, 0, "a", removal.range()),
                  removal.files(),
                  false);

      assertThat(removed).isEqualTo(removal.files());
      assertThat(commits).as("commits tried").hasValue(2);
      assertThat(TableFixture.rows(f.table(TOPIC, TOPIC_ID))).isEmpty();
    }
  }

  @Test
  void withOneAttemptTheSameRaceFails() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Removal removal = copyOneSegment(f);
      Table racing = racingOnFirstCommit(f, removal.table(), new AtomicInteger());

      assertThatThrownBy(
              () ->
                  new SegmentCommitter(1, 10, 100)
                      .remove(
                          racing,
                          new SegmentRemoval.Target(TOPIC_ID, 0, "a", removal.range()),
                          removal.files(),
                          false))
          .isInstanceOf(CommitFailedException.class);
      assertThat(TableFixture.rows(f.table(TOPIC, TOPIC_ID))).isNotEmpty();
    }
  }

  private record Removal(Table table, Set<String> files, OffsetRange range) {}

  /**
   * Copies one segment of partition 0 and switches Iceberg's own commit retry off on its table, so
   * that a lost race reaches the committer.
   */
  private Removal copyOneSegment(TableFixture f) throws Exception {
    SegmentGenerator gen = SegmentGenerator.seeded(11).randomMix(200);
    long last = gen.nextOffset() - 1;
    Path log = gen.writeTo(dir.resolve("a.log"));
    f.segments.copy(new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "a"), SegmentFiles.of(log, 0));
    Table table = f.table(TOPIC, TOPIC_ID);
    table.updateProperties().set(TableProperties.COMMIT_NUM_RETRIES, "0").commit();
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        files.add(file.location());
      }
    }
    assertThat(files).isNotEmpty();
    return new Removal(table, files, new OffsetRange(0, last));
  }

  /**
   * The table through operations that let another writer (its own instance of the table) commit
   * right before the first commit lands: that commit finds the table changed under it.
   */
  private static Table racingOnFirstCommit(TableFixture f, Table table, AtomicInteger commits) {
    Table other = f.catalog.loadTable(identifier(table));
    TableOperations ops = ((HasTableOperations) table).operations();
    TableOperations racing =
        new ForwardingTableOperations(ops) {
          @Override
          public void commit(TableMetadata base, TableMetadata metadata) {
            if (commits.incrementAndGet() == 1) {
              other.refresh();
              other.updateProperties().set("raced-by", "another-broker").commit();
            }
            delegate.commit(base, metadata);
          }
        };
    return new BaseTable(racing, table.name());
  }

  /** The table's identifier in its catalog (its name without the catalog's). */
  private static TableIdentifier identifier(Table table) {
    String name = table.name();
    return TableIdentifier.parse(name.substring(name.indexOf('.') + 1));
  }
}
