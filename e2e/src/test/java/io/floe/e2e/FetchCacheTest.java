package io.floe.e2e;

import static io.floe.e2e.TieredTopic.floeMetric;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker with a fetch cache: a consumer replaying tiered segments a consumer read before gets the
 * same records from the cache (hits counted), and the broker's stop removes the cache files.
 */
class FetchCacheTest {
  @TempDir Path dir;

  @Test
  void aSecondReplayOfTheTierIsServedFromTheCacheAndIsTheSame() throws Exception {
    Path cacheDir = dir.resolve("fetch-cache");
    try (FloeCluster cluster =
            FloeCluster.start(
                FloeCluster.s3CatalogProperties(dir),
                Map.of(
                    "fetch.cache.max.bytes", Long.toString(64L << 20),
                    "fetch.cache.dir", cacheDir.toString()));
        Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        JdbcCatalog catalog = cluster.catalog()) {
      TieredTopic topic = TieredTopic.create(cluster, admin, "replayed.events");
      long produced = topic.produceAndRoll(250);
      topic.awaitTieredThrough(produced);
      topic.awaitLocalLogStartPast(produced); // every read below goes to the plugin

      long hitsBefore = floeMetric("FetchCacheHits");
      long fetches = floeMetric("FetchCount");
      List<TieredTopic.Row> first = topic.consume(0, produced);
      assertThat(floeMetric("FetchCount")).as("remote fetches").isGreaterThan(fetches);
      assertThat(first).extracting(TieredTopic.Row::offset).startsWith(0L).endsWith(produced);
      assertThat(floeMetric("FetchCacheSegments"))
          .as("segments read from their first batch to their last are cached")
          .isPositive();
      assertThat(cacheFiles(cacheDir)).isNotEmpty();

      List<TieredTopic.Row> second = topic.consume(0, produced);
      assertThat(second).as("the replay from the cache").isEqualTo(first);
      assertThat(floeMetric("FetchCacheHits")).isGreaterThan(hitsBefore);
      assertThat(floeMetric("FetchErrors")).isZero();
      topic.assertTableHoldsEachRecordOnce(topic.table(catalog), produced, false);
    }
    assertThat(cacheFiles(cacheDir)).as("removed when the broker stops").isEmpty();
  }

  private static List<Path> cacheFiles(Path cacheDir) throws Exception {
    if (!Files.exists(cacheDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(cacheDir)) {
      return files.filter(f -> f.toString().endsWith(".segment")).toList();
    }
  }
}
