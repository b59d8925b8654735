package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.typed.ColumnFormat;
import io.floe.typed.ColumnFormat.Format;
import io.floe.typed.ColumnFormat.SchemaSource;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PayloadStatisticsTest {
  private static final String PREFIX = "write.parquet.stats-enabled.column.";

  @TempDir Path dir;

  @Test
  void binaryPayloadColumnsAreWrittenWithoutStatisticsAndOffsetsKeepTheirBounds() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL)) {
      Table table = f.tables.resolve("clicks", "id");
      assertThat(table.properties())
          .containsEntry(PREFIX + "key", "false")
          .containsEntry(PREFIX + "value", "false")
          .containsEntry(PREFIX + "headers.element.value", "false");
      SegmentGenerator gen = SegmentGenerator.seeded(4);
      for (int i = 0; i < 10; i++) {
        gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 20, 100);
      }
      f.segments.copy(
          new SegmentKey("clicks", "id", 0, 0, "s"),
          SegmentFiles.of(gen.writeTo(dir.resolve("0.log")), 0));
      Schema schema = table.schema();
      int key = schema.findField("key").fieldId();
      int value = schema.findField("value").fieldId();
      int headerValue = schema.findField("headers.element.value").fieldId();
      int offset = schema.findField(TopicTableLayout.OFFSET).fieldId();
      int type = schema.findField("kafka.timestamp_type").fieldId();
      List<DataFile> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks =
          f.table("clicks", "id").newScan().includeColumnStats().planFiles()) {
        tasks.forEach(t -> files.add(t.file()));
      }
      assertThat(files).isNotEmpty();
      for (DataFile file : files) {
        assertThat(file.lowerBounds()).doesNotContainKeys(key, value, headerValue);
        assertThat(file.upperBounds()).doesNotContainKeys(key, value, headerValue);
        assertThat(file.lowerBounds()).containsKeys(offset, type);
        assertThat(file.upperBounds()).containsKeys(offset, type);
      }
    }
  }

  @Test
  void typedPayloadColumnsKeepTheirStatistics() {
    ColumnFormat avro = new ColumnFormat(Format.AVRO, SchemaSource.WIRE, null);
    assertThat(
            TopicTableLayout.payloadStatisticsOff(TypedColumns.schema(ColumnFormat.BINARY, avro)))
        .containsOnlyKeys(PREFIX + "key", PREFIX + "headers.element.value");
    assertThat(TopicTableLayout.payloadStatisticsOff(TypedColumns.schema(avro, avro)))
        .containsOnlyKeys(PREFIX + "headers.element.value");
  }

  @Test
  void aPropertyTheTableOptionsSetWins() throws Exception {
    TopicTableOptions options =
        TopicTableOptions.builder().tableProperty(PREFIX + "value", "true").build();
    try (TableFixture f = new TableFixture(dir, Storage.LOCAL, options)) {
      assertThat(f.tables.resolve("clicks", "id").properties())
          .containsEntry(PREFIX + "value", "true")
          .containsEntry(PREFIX + "key", "false");
    }
  }
}
