package io.floe.commit;

import io.floe.layout.TopicTableLayout;
import java.time.OffsetDateTime;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;

/** Data files that exist only in a table's metadata: for tests of what commits decide. */
final class MetadataOnlyFiles {
  private MetadataOnlyFiles() {}

  /** A one-row data file of Kafka partition {@code partition}, named {@code name}. */
  static DataFile dataFile(Table table, String name, int partition) {
    GenericRecord row = GenericRecord.create(table.schema());
    GenericRecord kafka =
        GenericRecord.create(
            table.schema().findField(TopicTableLayout.KAFKA).type().asStructType());
    kafka.set(0, partition);
    kafka.set(2, OffsetDateTime.parse("2026-01-01T00:00:00Z"));
    row.set(0, kafka);
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartition(key)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }
}
