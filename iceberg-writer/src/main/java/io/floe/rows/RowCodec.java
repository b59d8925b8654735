package io.floe.rows;

import io.floe.format.BatchHeader;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordHeader;
import io.floe.format.TimestampType;
import io.floe.layout.KafkaTimestamps;
import io.floe.layout.TopicTableLayout;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/** Turns a Kafka record into a table row and back. */
public final class RowCodec {

  private final GenericRecord row;
  private final GenericRecord kafka;
  private final GenericRecord headerTemplate;

  public RowCodec(Schema schema) {
    this.row = GenericRecord.create(schema);
    this.kafka =
        GenericRecord.create(schema.findField(TopicTableLayout.KAFKA).type().asStructType());
    this.headerTemplate =
        GenericRecord.create(
            schema.findField("headers").type().asListType().elementType().asStructType());
    row.set(0, kafka);
  }

  /**
   * The table row of a record. The returned object is reused by the next call: writers consume it
   * at once (Parquet appenders copy values into column buffers), which saves two record allocations
   * per row.
   */
  public Record toRow(int partition, BatchHeader batch, KafkaRecord record) {
    boolean logAppend = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
    long visibleTimestamp = logAppend ? batch.maxTimestamp() : record.timestamp();
    int offsetDelta = (int) (record.offset() - batch.baseOffset());

    kafka.set(0, partition);
    kafka.set(1, record.offset());
    kafka.set(2, KafkaTimestamps.toTimestamp(visibleTimestamp, record.offset()));
    kafka.set(3, logAppend ? TopicTableLayout.LOG_APPEND_TIME : TopicTableLayout.CREATE_TIME);
    kafka.set(4, batch.partitionLeaderEpoch());
    kafka.set(5, batch.producerId());
    kafka.set(6, (int) batch.producerEpoch());
    kafka.set(7, batch.baseSequence() < 0 ? -1 : sequenceOf(batch.baseSequence(), offsetDelta));
    kafka.set(8, batch.isTransactional());
    kafka.set(
        9, logAppend ? KafkaTimestamps.toTimestamp(record.timestamp(), record.offset()) : null);

    List<Record> headers =
        record.headers().isEmpty() ? List.of() : new ArrayList<>(record.headers().size());
    for (RecordHeader h : record.headers()) {
      GenericRecord header = headerTemplate.copy();
      header.set(0, h.key());
      header.set(1, h.value() == null ? null : ByteBuffer.wrap(h.value()));
      headers.add(header);
    }

    row.set(1, record.key() == null ? null : ByteBuffer.wrap(record.key()));
    row.set(2, record.value() == null ? null : ByteBuffer.wrap(record.value()));
    row.set(3, headers);
    return row;
  }

  /** Kafka's sequence numbers wrap around at Integer.MAX_VALUE. */
  private static int sequenceOf(int baseSequence, int offsetDelta) {
    long seq = (long) baseSequence + offsetDelta;
    return (int) (seq > Integer.MAX_VALUE ? seq - Integer.MAX_VALUE - 1 : seq);
  }

  public static long offsetOf(Record row) {
    return (Long) ((Record) row.get(0)).get(1);
  }

  public static long producerIdOf(Record row) {
    return (Long) ((Record) row.get(0)).get(5);
  }

  public static KafkaRecord fromRow(Record row) {
    Record kafka = (Record) row.get(0);
    long offset = (Long) kafka.get(1);
    boolean logAppend = TopicTableLayout.LOG_APPEND_TIME.equals(kafka.get(3));
    OffsetDateTime ts = (OffsetDateTime) (logAppend ? kafka.get(9) : kafka.get(2));
    @SuppressWarnings("unchecked")
    List<Record> headerRows = (List<Record>) row.get(3);
    List<RecordHeader> headers = new ArrayList<>(headerRows == null ? 0 : headerRows.size());
    if (headerRows != null) {
      for (Record h : headerRows) {
        headers.add(new RecordHeader((String) h.get(0), bytes((ByteBuffer) h.get(1))));
      }
    }
    return new KafkaRecord(
        offset,
        KafkaTimestamps.toMillis(ts),
        bytes((ByteBuffer) row.get(1)),
        bytes((ByteBuffer) row.get(2)),
        headers);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer dup = buffer.duplicate();
    byte[] out = new byte[dup.remaining()];
    dup.get(out);
    return out;
  }
}
