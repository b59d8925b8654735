package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.TimestampType;
import io.floe.layout.WithoutHadoopDefaults;
import io.floe.rows.ConsumedRecord;
import io.floe.rows.RowCodec;
import io.floe.rows.TableCodecs;
import io.floe.testing.PartitionChecks;
import io.floe.testing.TableFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.OutputFileFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every head row lies in the partition of the file it is written to. */
class HeadPartitionWritersTest {
  private static final long HOUR = 3_600_000L;

  @TempDir Path dir;

  @Test
  void interleavedKafkaPartitionsCrossingHoursLieInTheirFilesPartitions() throws Exception {
    try (TableFixture f = TableFixture.hourly(dir)) {
      Table table = f.tables.resolve("clicks", "id");
      List<ConsumedRecord> records = interleaved(21);
      List<DataFile> files = written(table, records);
      assertThat(checked(table, files)).isEqualTo(records.size());
      assertThat(files).as("three Kafka partitions, each over three hours").hasSize(9);
    }
  }

  @Test
  void aSpecWithAKeyBucketStillPlacesEveryRow() throws Exception {
    try (TableFixture f = TableFixture.hourly(dir)) {
      Table table = f.tables.resolve("orders", "id");
      table.updateSpec().addField(Expressions.bucket("key", 4)).commit();
      List<ConsumedRecord> records = interleaved(22);
      List<DataFile> files = written(table, records);
      assertThat(checked(table, files)).isEqualTo(records.size());
      assertThat(files.size()).as("hours times key buckets").isGreaterThan(9);
    }
  }

  /**
   * Runs of records of three Kafka partitions, as a consumer hands them over, each partition's
   * timestamps going to the next hour and back, so that consecutive rows of different partitions
   * share an hour.
   */
  private static List<ConsumedRecord> interleaved(long seed) {
    Random random = new Random(seed);
    long base = 1_750_000_000_000L / HOUR * HOUR;
    Map<Integer, Long> offsets = new HashMap<>();
    List<ConsumedRecord> out = new ArrayList<>();
    for (int run = 0; run < 60; run++) {
      int partition = run % 3;
      int length = 1 + random.nextInt(30);
      for (int i = 0; i < length; i++) {
        long offset = offsets.merge(partition, 1L, Long::sum);
        long hour = (offset / 7) % 3;
        if (offset % 11 == 0) {
          hour = (hour + 1) % 3;
        }
        long timestamp = base + hour * HOUR + random.nextInt((int) HOUR);
        if (offset % 13 == 0) {
          timestamp = base + hour * HOUR + (offset % 2 == 0 ? 0 : HOUR - 1);
        }
        byte[] key = ("k" + random.nextInt(50)).getBytes(StandardCharsets.UTF_8);
        out.add(
            ConsumedRecord.of(
                partition,
                offset,
                timestamp,
                TimestampType.CREATE_TIME,
                0,
                key,
                new byte[] {(byte) offset},
                List.of()));
      }
    }
    return out;
  }

  private static List<DataFile> written(Table table, List<ConsumedRecord> records)
      throws Exception {
    RowCodec rows = TableCodecs.withoutRegistry().forHead(table);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, 0).format(FileFormat.PARQUET).build();
    HeadPartitionWriters writers =
        new HeadPartitionWriters(
            WithoutHadoopDefaults.parquet(table, table.schema(), null, table.properties()),
            files,
            table.io(),
            64L << 20,
            table.spec(),
            table.schema());
    for (ConsumedRecord r : records) {
      writers.write(rows.newRow(r), r.partition(), r.timestamp());
    }
    writers.close();
    return writers.dataFiles();
  }

  /** Checks each file's rows against its partition; returns the number of rows read. */
  private static long checked(Table table, List<DataFile> files) throws Exception {
    Set<String> partitions = new HashSet<>();
    long rows = 0;
    for (DataFile file : files) {
      rows += PartitionChecks.rowsInTheirFilesPartition(table, file);
      assertThat(partitions.add(file.partition().toString())).as("one file per partition").isTrue();
    }
    return rows;
  }
}
