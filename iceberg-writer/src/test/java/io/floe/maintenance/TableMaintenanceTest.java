package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableMaintenanceTest {
  @TempDir Path dir;

  @Test
  void expiresTheTablesCopiedIntoEveryIntervalSurvivesAFailingTableAndStopsOnClose()
      throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      long next = 0;
      for (int i = 0; i < 3; i++) {
        SegmentGenerator gen = SegmentGenerator.seeded(70 + i).startOffset(next);
        for (int b = 0; b < 10; b++) {
          gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 40);
        }
        f.segments.copy(
            new SegmentKey("kept", "id", 0, next, "s" + i),
            SegmentFiles.of(gen.writeTo(dir.resolve(i + ".log")), next));
        next = gen.nextOffset();
      }
      Table table = f.table("kept", "id");
      table
          .updateProperties()
          .set(TableProperties.MAX_SNAPSHOT_AGE_MS, "0")
          .set(TableProperties.MIN_SNAPSHOTS_TO_KEEP, "1")
          .commit();
      TableIdentifier gone = TableIdentifier.of("kafka", "dropped");
      Queue<SnapshotExpiry.Outcome> outcomes = new ConcurrentLinkedQueue<>();
      Queue<TableIdentifier> failures = new ConcurrentLinkedQueue<>();
      TableMaintenance maintenance =
          new TableMaintenance(
              "floe-table-maintenance-test",
              50,
              () -> {
                List<TableIdentifier> ids = new ArrayList<>(List.of(gone));
                ids.addAll(f.tables.copiedTables());
                return ids;
              },
              f.catalog::loadTable,
              new TableMaintenance.Listener() {
                @Override
                public void expired(SnapshotExpiry.Outcome outcome) {
                  outcomes.add(outcome);
                }

                @Override
                public void failed(TableIdentifier id, RuntimeException cause) {
                  assertThat(cause).isInstanceOf(NoSuchTableException.class);
                  failures.add(id);
                }
              });
      try (maintenance) {
        maintenance.start();
        awaitUntil(
            () -> {
              table.refresh();
              return Iterables.size(table.snapshots()) == 1;
            });
        awaitUntil(() -> outcomes.stream().mapToInt(o -> o.expiredSnapshots()).sum() == 2);
        assertThat(failures).contains(gone);
        assertThat(outcomes).allMatch(o -> o.table().endsWith("kafka.kept"));
        assertThat(maintenance.isRunning()).isTrue();

        long closing = System.nanoTime();
        maintenance.close();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(3));
        assertThat(maintenance.isRunning()).isFalse();
      }
      f.assertServesExactly(new SegmentKey("kept", "id", 0, 0, "s0"), dir.resolve("0.log"));
    }
  }

  private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition met within 60 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
