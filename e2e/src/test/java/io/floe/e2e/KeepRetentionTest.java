package io.floe.e2e;

import static io.floe.e2e.TieredTopic.AWAIT;
import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With retention.mode=keep, Kafka's retention deletes remote segments (its log start offset moves
 * past them) while their rows stay in the table's current snapshot as history: no snapshot removes
 * them.
 */
class KeepRetentionTest {
  @TempDir Path dir;

  @Test
  void retentionAdvancesKafkaButKeepsTheRows() throws Exception {
    try (FloeCluster cluster =
            FloeCluster.start(
                FloeCluster.s3CatalogProperties(dir), Map.of("retention.mode", "keep"));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        JdbcCatalog catalog = cluster.catalog()) {
      TieredTopic topic = TieredTopic.create(cluster, admin, "keep.events");
      long produced = topic.produceAndRoll(150);
      topic.awaitTieredThrough(produced);
      long tiered = topic.latestTiered();
      Table table = topic.table(catalog);
      topic.assertTableHoldsEachRecordOnce(table, produced, true);
      List<TieredTopic.Row> rows = TieredTopic.rows(table);
      int segments = TieredTopic.copySnapshots(table).size();
      long deletes = floeMetric("DeleteCount");

      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic.name),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET))))
          .all()
          .get();
      await("Kafka's retention deletes the tiered segments")
          .atMost(AWAIT)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () ->
                  topic.offset(OffsetSpec.earliest()) > tiered
                      && floeMetric("DeleteCount") >= deletes + segments);

      assertThat(floeMetric("DeleteErrors")).isZero();
      // Retention may roll and tier the active segment too: the rows from before must all still be
      // there.
      long kept = rows.get(rows.size() - 1).offset();
      assertThat(TieredTopic.rows(table).stream().filter(r -> r.offset() <= kept).toList())
          .as("rows after Kafka deleted the segments")
          .isEqualTo(rows);
      for (Snapshot s = table.currentSnapshot();
          s != null;
          s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
        assertThat(s.summary())
            .as("snapshot %d", s.snapshotId())
            .doesNotContainEntry("floe.operation", "delete-segment");
      }
    }
  }
}
