package io.floe.headview;

import io.floe.layout.KafkaTimestamps;
import io.floe.layout.TopicTableLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

/**
 * Builds topic-table rows ({@link TopicTableLayout#SCHEMA}) from records a Kafka consumer returns,
 * the way the plugin's row codec builds them from a log segment, for the columns a consumer can
 * see:
 *
 * <ul>
 *   <li>{@code kafka.partition}, {@code offset}, {@code timestamp}, {@code timestamp_type}, {@code
 *       key}, {@code value} and {@code headers} (order and duplicates kept, nulls stay null) are
 *       exactly the plugin's. For {@code LOG_APPEND_TIME} the consumer's timestamp is the broker's,
 *       which is what the plugin stores in {@code kafka.timestamp} too.
 *   <li>{@code leader_epoch} is the record's leader epoch, or -1 when the broker did not send one.
 *   <li>Not visible to a consumer, so written as "unknown": {@code producer_id} = -1, {@code
 *       producer_epoch} = -1, {@code sequence} = -1, {@code is_transactional} = false (a
 *       read_committed consumer only returns committed records, so a head row is never part of an
 *       open or aborted transaction), and {@code create_timestamp} = null (the producer's own
 *       timestamp of a LOG_APPEND_TIME record). Once the segment is tiered, the committed rows
 *       carry the real values.
 * </ul>
 *
 * Fields are looked up by name in the table's schema, so a table whose schema gained columns still
 * gets rows (the extra columns are null).
 */
public final class HeadRows {

  private final Schema schema;
  private final Types.StructType kafkaType;
  private final Types.StructType headerType;

  public HeadRows(Schema schema) {
    this.schema = schema;
    this.kafkaType = schema.findField(TopicTableLayout.KAFKA).type().asStructType();
    this.headerType = schema.findField("headers").type().asListType().elementType().asStructType();
  }

  /** A new row (not reused) for the record. */
  public Record toRow(ConsumerRecord<byte[], byte[]> record) {
    boolean logAppend = record.timestampType() == TimestampType.LOG_APPEND_TIME;
    GenericRecord kafka = GenericRecord.create(kafkaType);
    kafka.setField("partition", record.partition());
    kafka.setField("offset", record.offset());
    kafka.setField("timestamp", KafkaTimestamps.toTimestamp(record.timestamp(), record.offset()));
    kafka.setField(
        "timestamp_type",
        logAppend ? TopicTableLayout.LOG_APPEND_TIME : TopicTableLayout.CREATE_TIME);
    kafka.setField("leader_epoch", record.leaderEpoch().orElse(-1));
    kafka.setField("producer_id", -1L);
    kafka.setField("producer_epoch", -1);
    kafka.setField("sequence", -1);
    kafka.setField("is_transactional", false);
    kafka.setField("create_timestamp", null);

    List<Record> headers = new ArrayList<>();
    for (Header h : record.headers()) {
      GenericRecord header = GenericRecord.create(headerType);
      header.setField("key", h.key());
      header.setField("value", h.value() == null ? null : ByteBuffer.wrap(h.value()));
      headers.add(header);
    }

    GenericRecord row = GenericRecord.create(schema);
    row.setField(TopicTableLayout.KAFKA, kafka);
    row.setField("key", record.key() == null ? null : ByteBuffer.wrap(record.key()));
    row.setField("value", record.value() == null ? null : ByteBuffer.wrap(record.value()));
    row.setField("headers", headers);
    return row;
  }
}
