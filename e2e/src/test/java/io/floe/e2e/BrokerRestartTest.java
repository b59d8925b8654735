package io.floe.e2e;

import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker restarted on its log directories (a new RemoteLogManager and a new, freshly configured
 * plugin instance) still serves the tiered records from the Iceberg table, goes on tiering from
 * where it stopped, and copies no segment twice: the table's snapshots from before the restart are
 * kept as they were, and each segment's offsets are in exactly one snapshot.
 */
class BrokerRestartTest {
  @TempDir Path dir;

  @Test
  void tieredDataSurvivesARestartAndNothingIsCopiedTwice() throws Exception {
    try (FloeCluster cluster = FloeCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
        JdbcCatalog catalog = cluster.catalog()) {
      TieredTopic topic;
      long before;
      long tiered;
      List<TieredTopic.CopySnapshot> copiesBefore;
      List<TieredTopic.Row> served;
      try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
        topic = TieredTopic.create(cluster, admin, "restart.events");
        topic.topicId();
        before = topic.produceAndRoll(250);
        // Restart with no copy in flight: one cut short (after its commit, before Kafka recorded
        // it) is copied
        // again after the restart by design, replacing the first copy's files.
        tiered = topic.awaitAllTiered();
        topic.awaitLocalLogStartPast(before);
        copiesBefore = TieredTopic.copySnapshots(topic.table(catalog));
        served = topic.consume(0, tiered);
      }
      assertThat(served).hasSize((int) tiered + 1);

      cluster.restartBroker();

      try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
        TieredTopic after = topic.withAdmin(admin);
        long errors = floeMetric("CopyErrors");
        // The restarted broker reads the remote log metadata topic again before it knows what is
        // tiered.
        after.awaitTieredThrough(tiered);
        assertThat(after.offset(OffsetSpec.earliestLocal()))
            .as("local log start after the restart")
            .isGreaterThan(before);
        long fetches = floeMetric("FetchCount");
        assertThat(after.consume(0, tiered))
            .as("tiered records read after the restart")
            .isEqualTo(served);
        assertThat(floeMetric("FetchCount"))
            .as("served by the restarted plugin")
            .isGreaterThan(fetches);

        long more = after.produceAndRoll(120);
        assertThat(after.awaitAllTiered()).isGreaterThanOrEqualTo(more);
        Table table = after.table(catalog);
        List<TieredTopic.CopySnapshot> copiesAfter = TieredTopic.copySnapshots(table);
        assertThat(copiesAfter.subList(0, copiesBefore.size()))
            .as("snapshots from before the restart, unchanged")
            .isEqualTo(copiesBefore);
        after.assertTableHoldsEachRecordOnce(table, more, true);
        assertThat(floeMetric("CopyErrors")).isEqualTo(errors);
      }
    }
  }
}
