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
import org.apache.iceberg.types.Types;

/**
 * The one mapping between a Kafka record and a row of a topic table ({@link TopicTableLayout}):
 * copy writes rows from a log segment's batches, fetch reads records back from rows, the head view
 * writes rows from what a consumer returns. Columns are found by name once per schema, never per
 * row (catalogs assign field ids, and a table's schema may gain columns: those stay null); keys and
 * values go through a {@link ValueCodec}.
 */
public final class RowCodec {
  private static final String HEADERS = "headers";
  static final String KEY = "key";
  static final String VALUE = "value";

  private final Types.StructType rowType;
  private final Types.StructType kafkaType;
  private final int kafkaPos;
  private final int headersPos;
  private final int partitionPos;
  private final int offsetPos;
  private final int timestampPos;
  private final int timestampTypePos;
  private final int leaderEpochPos;
  private final int producerIdPos;
  private final int producerEpochPos;
  private final int sequencePos;
  private final int transactionalPos;
  private final int createTimestampPos;
  private final int headerKeyPos;
  private final int headerValuePos;
  private final ValueCodec keys;
  private final ValueCodec values;

  // Reused by toRow(int, BatchHeader, KafkaRecord)
  private final GenericRecord row;
  private final GenericRecord kafka;
  private final GenericRecord headerTemplate;

  /** A codec for rows of {@code schema}, keys and values in binary columns. */
  public RowCodec(Schema schema) {
    this(schema, ColumnCodec.BINARY, ColumnCodec.BINARY);
  }

  /** A codec for rows of {@code schema}, keys and values as {@code key} and {@code value} say. */
  public RowCodec(Schema schema, ColumnCodec key, ColumnCodec value) {
    this.rowType = schema.asStruct();
    this.kafkaPos = positionOf(rowType, TopicTableLayout.KAFKA);
    this.kafkaType = rowType.fields().get(kafkaPos).type().asStructType();
    this.headersPos = positionOf(rowType, HEADERS);
    Types.StructType headerType =
        rowType.fields().get(headersPos).type().asListType().elementType().asStructType();
    this.partitionPos = positionOf(kafkaType, "partition");
    this.offsetPos = positionOf(kafkaType, "offset");
    this.timestampPos = positionOf(kafkaType, "timestamp");
    this.timestampTypePos = positionOf(kafkaType, "timestamp_type");
    this.leaderEpochPos = positionOf(kafkaType, "leader_epoch");
    this.producerIdPos = positionOf(kafkaType, "producer_id");
    this.producerEpochPos = positionOf(kafkaType, "producer_epoch");
    this.sequencePos = positionOf(kafkaType, "sequence");
    this.transactionalPos = positionOf(kafkaType, "is_transactional");
    this.createTimestampPos = positionOf(kafkaType, "create_timestamp");
    this.headerKeyPos = positionOf(headerType, KEY);
    this.headerValuePos = positionOf(headerType, VALUE);
    this.keys = key.codec(rowType, KEY);
    this.values = value.codec(rowType, VALUE);
    this.row = GenericRecord.create(rowType);
    this.kafka = GenericRecord.create(kafkaType);
    this.headerTemplate = GenericRecord.create(headerType);
    row.set(kafkaPos, kafka);
  }

  /**
   * The table row of a record of a log segment. The returned object is reused by the next call:
   * writers consume it at once (Parquet appenders copy values into column buffers), which saves two
   * record allocations per row.
   */
  public Record toRow(int partition, BatchHeader batch, KafkaRecord record) {
    boolean logAppend = batch.timestampType() == TimestampType.LOG_APPEND_TIME;
    long offset = record.offset();
    int offsetDelta = (int) (offset - batch.baseOffset());
    setVisible(
        kafka,
        partition,
        offset,
        visibleTimestamp(batch, record),
        logAppend,
        batch.partitionLeaderEpoch());
    setProducer(
        kafka,
        batch.producerId(),
        batch.producerEpoch(),
        batch.baseSequence() < 0 ? -1 : sequenceOf(batch.baseSequence(), offsetDelta),
        batch.isTransactional(),
        logAppend ? KafkaTimestamps.toTimestamp(record.timestamp(), offset) : null);
    setPayload(row, record.key(), record.value(), record.headers());
    return row;
  }

  /**
   * The {@code kafka.timestamp} of a record of a log segment, in milliseconds: what a consumer sees
   * (the batch's for log-append time).
   */
  public static long visibleTimestamp(BatchHeader batch, KafkaRecord record) {
    return batch.timestampType() == TimestampType.LOG_APPEND_TIME
        ? batch.maxTimestamp()
        : record.timestamp();
  }

  /**
   * A new row (not reused) for a record a Kafka consumer returned, with the columns a consumer can
   * see:
   *
   * <ul>
   *   <li>{@code kafka.partition}, {@code offset}, {@code timestamp}, {@code timestamp_type},
   *       {@code key}, {@code value} and {@code headers} (order and duplicates kept, nulls stay
   *       null) are exactly those {@link #toRow(int, BatchHeader, KafkaRecord)} writes. For {@code
   *       LOG_APPEND_TIME} the consumer's timestamp is the broker's, which is what copy stores in
   *       {@code kafka.timestamp} too.
   *   <li>{@code leader_epoch} is the record's leader epoch, or -1 when the broker did not send
   *       one.
   *   <li>Not visible to a consumer, so written as "unknown": {@code producer_id} = -1, {@code
   *       producer_epoch} = -1, {@code sequence} = -1, {@code is_transactional} = false (a
   *       read_committed consumer only returns committed records, so such a row is never part of an
   *       open or aborted transaction), and {@code create_timestamp} = null (the producer's own
   *       timestamp of a LOG_APPEND_TIME record). Once the segment is tiered, the committed rows
   *       carry the real values.
   * </ul>
   */
  public Record newRow(ConsumedRecord record) {
    GenericRecord newKafka = GenericRecord.create(kafkaType);
    setVisible(
        newKafka,
        record.partition(),
        record.offset(),
        record.timestamp(),
        record.timestampType() == TimestampType.LOG_APPEND_TIME,
        record.leaderEpoch());
    setProducer(newKafka, -1L, -1, -1, false, null);
    GenericRecord newRow = GenericRecord.create(rowType);
    newRow.set(kafkaPos, newKafka);
    setHeaders(newRow, record.headers());
    keys.write(record.key(), newRow);
    values.write(record.value(), newRow);
    return newRow;
  }

  /** The record a row of a topic table holds, as copy read it from the log segment. */
  public KafkaRecord fromRow(Record source) {
    Record kafkaRow = (Record) source.get(kafkaPos);
    long offset = (Long) kafkaRow.get(offsetPos);
    boolean logAppend = TopicTableLayout.LOG_APPEND_TIME.equals(kafkaRow.get(timestampTypePos));
    OffsetDateTime ts =
        (OffsetDateTime) kafkaRow.get(logAppend ? createTimestampPos : timestampPos);
    @SuppressWarnings("unchecked")
    List<Record> headerRows = (List<Record>) source.get(headersPos);
    List<RecordHeader> headers = new ArrayList<>(headerRows == null ? 0 : headerRows.size());
    if (headerRows != null) {
      for (Record h : headerRows) {
        headers.add(
            new RecordHeader(
                (String) h.get(headerKeyPos), bytes((ByteBuffer) h.get(headerValuePos))));
      }
    }
    return new KafkaRecord(
        offset, KafkaTimestamps.toMillis(ts), keys.read(source), values.read(source), headers);
  }

  /** The typed keys and values rows were made with so far, by status. */
  public PayloadCounts payloadCounts() {
    return keys.counts().plus(values.counts());
  }

  public long offsetOf(Record row) {
    return (Long) ((Record) row.get(kafkaPos)).get(offsetPos);
  }

  public long producerIdOf(Record row) {
    return (Long) ((Record) row.get(kafkaPos)).get(producerIdPos);
  }

  /** The columns a Kafka consumer sees too. */
  private void setVisible(
      GenericRecord target,
      int partition,
      long offset,
      long timestamp,
      boolean logAppend,
      int leaderEpoch) {
    target.set(partitionPos, partition);
    target.set(offsetPos, offset);
    target.set(timestampPos, KafkaTimestamps.toTimestamp(timestamp, offset));
    target.set(
        timestampTypePos,
        logAppend ? TopicTableLayout.LOG_APPEND_TIME : TopicTableLayout.CREATE_TIME);
    target.set(leaderEpochPos, leaderEpoch);
  }

  /** The columns only the log segment holds. */
  private void setProducer(
      GenericRecord target,
      long producerId,
      int producerEpoch,
      int sequence,
      boolean transactional,
      OffsetDateTime createTimestamp) {
    target.set(producerIdPos, producerId);
    target.set(producerEpochPos, producerEpoch);
    target.set(sequencePos, sequence);
    target.set(transactionalPos, transactional);
    target.set(createTimestampPos, createTimestamp);
  }

  private void setPayload(
      GenericRecord target, byte[] key, byte[] value, List<RecordHeader> recordHeaders) {
    setHeaders(target, recordHeaders);
    keys.write(key, target);
    values.write(value, target);
  }

  private void setHeaders(GenericRecord target, List<RecordHeader> recordHeaders) {
    List<Record> headers =
        recordHeaders.isEmpty() ? List.of() : new ArrayList<>(recordHeaders.size());
    for (RecordHeader h : recordHeaders) {
      GenericRecord header = headerTemplate.copy();
      header.set(headerKeyPos, h.key());
      header.set(headerValuePos, h.value() == null ? null : ByteBuffer.wrap(h.value()));
      headers.add(header);
    }
    target.set(headersPos, headers);
  }

  /** Kafka's sequence numbers wrap around at Integer.MAX_VALUE. */
  private static int sequenceOf(int baseSequence, int offsetDelta) {
    long seq = (long) baseSequence + offsetDelta;
    return (int) (seq > Integer.MAX_VALUE ? seq - Integer.MAX_VALUE - 1 : seq);
  }

  /** The position of the field named {@code name} in {@code struct}. */
  static int positionOf(Types.StructType struct, String name) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException(
        "Not a topic table row: no field '" + name + "' in " + struct);
  }

  static byte[] bytes(ByteBuffer buffer) {
    if (buffer == null) {
      return null;
    }
    ByteBuffer dup = buffer.duplicate();
    byte[] out = new byte[dup.remaining()];
    dup.get(out);
    return out;
  }
}
