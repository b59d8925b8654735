package io.floe.headview;

import io.floe.layout.SegmentSummary;
import io.floe.rows.RowCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

/**
 * Stands in for the plugin's copy path in tests and the bench: commits offsets [from, to) of one
 * partition to the real table as one snapshot with the summary the plugin's committer writes, the
 * rows read back from the broker.
 */
public final class Tierer implements AutoCloseable {
  private final KafkaConsumer<ByteBuffer, ByteBuffer> consumer;
  private final String topic;
  private int fileCounter;

  public Tierer(String bootstrap, String topic) {
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "isolation.level",
                "read_committed",
                "auto.offset.reset",
                "none"),
            new ByteBufferDeserializer(),
            new ByteBufferDeserializer());
    this.topic = topic;
  }

  public void commit(Table table, int partition, long from, long to) throws IOException {
    commit(table, partition, from, to, true);
  }

  /** The same rows committed as another writer would: a plain row delta, no segment summary. */
  public void commitWithoutSummary(Table table, int partition, long from, long to)
      throws IOException {
    commit(table, partition, from, to, false);
  }

  private void commit(Table table, int partition, long from, long to, boolean summary)
      throws IOException {
    table.refresh();
    Schema schema = table.schema();
    RowCodec rows = new RowCodec(schema);
    PartitionKey key = new PartitionKey(table.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    FanoutDataWriter<Record> writer =
        new FanoutDataWriter<>(
            new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET)
                .dataSchema(schema)
                .build(),
            OutputFileFactory.builderFor(table, partition, ++fileCounter)
                .format(FileFormat.PARQUET)
                .build(),
            table.io(),
            128L << 20);
    TopicPartition tp = new TopicPartition(topic, partition);
    consumer.assign(List.of(tp));
    consumer.seek(tp, from);
    try (writer) {
      while (consumer.position(tp) < to) {
        for (ConsumerRecord<ByteBuffer, ByteBuffer> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < to) {
            Record row = rows.newRow(ConsumedRecords.of(r));
            key.partition(wrapper.wrap(row));
            writer.write(row, table.spec(), key);
          }
        }
      }
    }
    RowDelta delta = table.newRowDelta();
    for (DataFile f : writer.result().dataFiles()) {
      delta.addRows(f);
    }
    if (summary) {
      delta
          .set(SegmentSummary.PARTITION, Integer.toString(partition))
          .set(SegmentSummary.START_OFFSET, Long.toString(from))
          .set(SegmentSummary.END_OFFSET, Long.toString(to - 1));
    }
    delta.commit();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(1));
  }
}
