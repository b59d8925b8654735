package io.floe.tier;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SegmentCommitter;
import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.Batches;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TestCatalogs;
import io.floe.testing.TestCatalogs.Storage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Using the bridge as a library" example is this test's code between its markers,
 * line for line, and does what its comments say.
 */
class LibraryExampleTest {
  private static final Path SOURCE = Path.of("src/test/java/io/floe/tier/LibraryExampleTest.java");
  private static final Path README = Path.of("..", "README.md");
  private static final String START = "\n    // readme-example:start\n";
  private static final String END = "    // readme-example:end\n";

  @TempDir Path dir;

  @Test
  void theReadmeExampleCopiesFetchesAndDeletesASegment() throws Exception {
    Map<String, String> catalogProperties =
        new HashMap<>(TestCatalogs.properties(dir, Storage.LOCAL));
    catalogProperties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
    String topicId = "fXq3cN6tR0m3Q0nS0b6y1w";
    String segmentId = "AAAAAAAAAAAAAAAAAAAAAA";
    Path logDir = Files.createDirectories(dir.resolve("orders-0"));
    SegmentGenerator.seeded(7)
        .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 50, 100)
        .batch(Compression.NONE, TimestampType.CREATE_TIME, 20, 100)
        .writeTo(logDir.resolve("00000000000000000000.log"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    // readme-example:start
    Catalog catalog =
        CatalogUtil.buildIcebergCatalog("floe", catalogProperties, new Configuration());
    TieredSegments segments =
        new TieredSegments(
            new TopicTables(catalog, TopicTableOptions.builder().build()), new SegmentCommitter());
    SegmentKey key = new SegmentKey("orders", topicId, 0, 0L, segmentId);
    segments.copy(key, SegmentFiles.of(logDir.resolve("00000000000000000000.log"), 0L));
    try (InputStream batches = segments.open(key).fetch(0)) { // re-encoded v2 batches
      batches.transferTo(out);
    }
    segments.delete(key, true, DeleteReason.EXPIRED); // rows leave the current snapshot
    // readme-example:end

    Batches.assertSameBatches(
        Batches.read(logDir.resolve("00000000000000000000.log")),
        Batches.read(new ByteArrayInputStream(out.toByteArray())));
    Table table = catalog.loadTable(TableIdentifier.of("kafka", "orders"));
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      assertThat(rows).isEmpty();
    }
    assertThat(table.history()).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void theReadmeShowsThisTestsExample() throws Exception {
    String code = Files.readString(SOURCE);
    String example =
        code.substring(code.indexOf(START) + START.length(), code.indexOf(END))
            .lines()
            .map(line -> line.substring(Math.min(line.length(), 4)))
            .collect(Collectors.joining("\n", "```java\n", "\n```\n"));
    assertThat(Files.readString(README))
        .as("README's library example; copy it from " + SOURCE)
        .contains(example);
  }
}
