package io.floe.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.BatchHeader;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordHeader;
import io.floe.format.TimestampType;
import io.floe.layout.KafkaTimestamps;
import io.floe.layout.TopicTableLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.junit.jupiter.api.Test;

class RowCodecTest {
  private static final long PRODUCER_ID = 4242L;
  private static final short PRODUCER_EPOCH = 7;
  private static final int LEADER_EPOCH = 12;

  @Test
  void aCopiedRowGivesBackTheRecordWithNullsEmptiesAndDuplicateHeaders() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    BatchHeader batch = batch(1000, 3, 0, 5, 1_700_000_000_999L);
    List<KafkaRecord> records =
        List.of(
            new KafkaRecord(1000, 1_700_000_000_000L, null, null, List.of()),
            new KafkaRecord(
                1001,
                1_700_000_000_500L,
                new byte[0],
                bytes("v"),
                List.of(
                    new RecordHeader("h", bytes("1")),
                    new RecordHeader("h", bytes("1")),
                    new RecordHeader("n", null),
                    new RecordHeader("h", new byte[0]))),
            new KafkaRecord(1002, -5L, bytes("k"), new byte[0], List.of()));

    for (KafkaRecord record : records) {
      Record row = codec.toRow(3, batch, record);
      assertThat(codec.fromRow(row)).isEqualTo(record);
      assertThat(codec.offsetOf(row)).isEqualTo(record.offset());
      assertThat(codec.producerIdOf(row)).isEqualTo(PRODUCER_ID);
    }

    Record row = codec.toRow(3, batch, records.get(1));
    assertThat(row.getField("key")).isEqualTo(ByteBuffer.wrap(new byte[0]));
    assertThat(headers(row))
        .as("order, duplicates and nulls kept")
        .containsExactly("h=1", "h=1", "n=null", "h=");
    Record nulls = codec.toRow(3, batch, records.get(0));
    assertThat(nulls.getField("key")).isNull();
    assertThat(nulls.getField("value")).isNull();
  }

  @Test
  void aCopiedRowHoldsTheBatchFields() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    BatchHeader batch = transactional(batch(500, 2, 0, 40, 1_700_000_000_000L));
    Record kafka =
        kafka(codec.toRow(9, batch, new KafkaRecord(501, 1_700_000_000_000L, null, null, null)));
    assertThat(kafka.getField("partition")).isEqualTo(9);
    assertThat(kafka.getField("offset")).isEqualTo(501L);
    assertThat(kafka.getField("timestamp_type")).isEqualTo("CREATE_TIME");
    assertThat(kafka.getField("leader_epoch")).isEqualTo(LEADER_EPOCH);
    assertThat(kafka.getField("producer_id")).isEqualTo(PRODUCER_ID);
    assertThat(kafka.getField("producer_epoch")).isEqualTo((int) PRODUCER_EPOCH);
    assertThat(kafka.getField("sequence")).isEqualTo(41);
    assertThat(kafka.getField("is_transactional")).isEqualTo(true);
    assertThat(kafka.getField("create_timestamp")).isNull();
  }

  @Test
  void logAppendTimeRowsShowTheBrokerTimeAndKeepTheProducerTime() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    long brokerTime = 1_700_000_009_000L;
    BatchHeader batch = logAppendTime(batch(0, 2, 0, -1, brokerTime));
    KafkaRecord record = new KafkaRecord(1, 1_700_000_000_123L, bytes("k"), bytes("v"), List.of());

    Record row = codec.toRow(0, batch, record);

    assertThat(kafka(row).getField("timestamp_type")).isEqualTo("LOG_APPEND_TIME");
    assertThat(kafka(row).getField("timestamp"))
        .isEqualTo(KafkaTimestamps.toTimestamp(brokerTime, 1));
    assertThat(kafka(row).getField("create_timestamp"))
        .isEqualTo(KafkaTimestamps.toTimestamp(record.timestamp(), 1));
    assertThat(codec.fromRow(row)).as("the stored timestamp comes back").isEqualTo(record);
  }

  @Test
  void sequencesWrapAtIntegerMaxValueAndStayMinusOneWithoutAProducer() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    BatchHeader batch = batch(10, 4, 0, Integer.MAX_VALUE - 1, 0L);
    List<Object> sequences = new ArrayList<>();
    for (long offset = 10; offset < 14; offset++) {
      Record row = codec.toRow(0, batch, new KafkaRecord(offset, 0L, null, null, null));
      sequences.add(kafka(row).getField("sequence"));
    }
    assertThat(sequences).containsExactly(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, 0, 1);

    Record plain =
        codec.toRow(0, batch(10, 1, 0, -1, 0L), new KafkaRecord(10, 0L, null, null, null));
    assertThat(kafka(plain).getField("sequence")).isEqualTo(-1);
  }

  @Test
  void copyReusesOneRowObject() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    BatchHeader batch = batch(0, 2, 0, -1, 0L);
    Record first = codec.toRow(0, batch, new KafkaRecord(0, 0L, null, null, null));
    Record second = codec.toRow(0, batch, new KafkaRecord(1, 0L, null, null, null));
    assertThat(second).isSameAs(first);
    assertThat(codec.offsetOf(first)).isEqualTo(1L);
  }

  @Test
  void headRowsCarryWhatAConsumerSeesAndUnknownForTheRest() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    ConsumedRecord consumed =
        ConsumedRecord.of(
            2,
            77,
            1_700_000_000_321L,
            TimestampType.LOG_APPEND_TIME,
            -1,
            null,
            bytes("v"),
            List.of(new RecordHeader("a", null), new RecordHeader("a", bytes("x"))));

    Record row = codec.newRow(consumed);
    Record kafka = kafka(row);

    assertThat(kafka.getField("partition")).isEqualTo(2);
    assertThat(kafka.getField("offset")).isEqualTo(77L);
    assertThat(kafka.getField("timestamp"))
        .isEqualTo(KafkaTimestamps.toTimestamp(consumed.timestamp(), 77));
    assertThat(kafka.getField("timestamp_type")).isEqualTo("LOG_APPEND_TIME");
    assertThat(kafka.getField("leader_epoch")).isEqualTo(-1);
    assertThat(kafka.getField("producer_id")).isEqualTo(-1L);
    assertThat(kafka.getField("producer_epoch")).isEqualTo(-1);
    assertThat(kafka.getField("sequence")).isEqualTo(-1);
    assertThat(kafka.getField("is_transactional")).isEqualTo(false);
    assertThat(kafka.getField("create_timestamp")).isNull();
    assertThat(row.getField("key")).isNull();
    assertThat(row.getField("value")).isEqualTo(ByteBuffer.wrap(bytes("v")));
    assertThat(headers(row)).containsExactly("a=null", "a=x");

    Record other = codec.newRow(consumed);
    assertThat(other).isNotSameAs(row).isEqualTo(row);
  }

  @Test
  void headRowsOfBufferViewsHoldExactlyTheirPayloadsWithoutMovingThem() {
    byte[] fetched = bytes("..key|value..");
    ByteBuffer key = ByteBuffer.wrap(fetched, 2, 3).slice();
    ByteBuffer value = ByteBuffer.wrap(fetched, 6, 5);
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    Record row =
        codec.newRow(
            new ConsumedRecord(0, 9, 1_000L, TimestampType.CREATE_TIME, 0, key, value, null));
    KafkaRecord back = codec.fromRow(row);
    assertThat(back.key()).isEqualTo(bytes("key"));
    assertThat(back.value()).isEqualTo(bytes("value"));
    assertThat(value.position()).isEqualTo(6);
    assertThat(value.remaining()).isEqualTo(5);
    assertThat(codec.fromRow(row).value()).isEqualTo(bytes("value"));
  }

  @Test
  void headRowsKeepAKnownLeaderEpochAndCreateTime() {
    RowCodec codec = new RowCodec(TopicTableLayout.SCHEMA);
    Record kafka =
        kafka(
            codec.newRow(
                ConsumedRecord.of(
                    0, 5, 1_000L, TimestampType.CREATE_TIME, 3, bytes("k"), null, null)));
    assertThat(kafka.getField("leader_epoch")).isEqualTo(3);
    assertThat(kafka.getField("timestamp_type")).isEqualTo("CREATE_TIME");
    assertThat(kafka.getField("timestamp")).isEqualTo(KafkaTimestamps.toTimestamp(1_000L, 5));
  }

  @Test
  void aSchemaThatGainedAndMovedColumnsStillGetsRows() {
    Types.StructType layout = TopicTableLayout.SCHEMA.asStruct();
    Types.StructType kafkaType = layout.field(TopicTableLayout.KAFKA).type().asStructType();
    List<NestedField> kafkaFields = new ArrayList<>(kafkaType.fields());
    kafkaFields.add(0, NestedField.optional(120, "broker_note", Types.StringType.get()));
    Schema evolved =
        new Schema(
            NestedField.optional(9, "ingested_by", Types.StringType.get()),
            layout.field("value"),
            layout.field("headers"),
            NestedField.required(
                layout.field(TopicTableLayout.KAFKA).fieldId(),
                TopicTableLayout.KAFKA,
                Types.StructType.of(kafkaFields)),
            layout.field("key"));
    RowCodec codec = new RowCodec(evolved);
    BatchHeader batch = batch(40, 1, 0, 3, 0L);
    KafkaRecord record =
        new KafkaRecord(40, 123L, bytes("k"), bytes("v"), List.of(new RecordHeader("h", null)));

    Record row = codec.toRow(1, batch, record);

    assertThat(row.getField("ingested_by")).isNull();
    assertThat(kafka(row).getField("broker_note")).isNull();
    assertThat(kafka(row).getField("offset")).isEqualTo(40L);
    assertThat(kafka(row).getField("sequence")).isEqualTo(3);
    assertThat(row.getField("key")).isEqualTo(ByteBuffer.wrap(bytes("k")));
    assertThat(codec.fromRow(row)).isEqualTo(record);
    assertThat(codec.offsetOf(row)).isEqualTo(40L);

    Record head =
        codec.newRow(
            ConsumedRecord.of(1, 41, 5L, TimestampType.CREATE_TIME, 0, null, bytes("v"), null));
    assertThat(head.getField("ingested_by")).isNull();
    assertThat(kafka(head).getField("offset")).isEqualTo(41L);
    assertThat(head.getField("value")).isEqualTo(ByteBuffer.wrap(bytes("v")));
  }

  @Test
  void rowsOfDifferentSchemasReadInTurnResolveTheirOwnColumns() {
    Types.StructType layout = TopicTableLayout.SCHEMA.asStruct();
    Schema reordered =
        new Schema(
            layout.field("headers"),
            layout.field("key"),
            layout.field("value"),
            layout.field(TopicTableLayout.KAFKA));
    RowCodec a = new RowCodec(TopicTableLayout.SCHEMA);
    RowCodec b = new RowCodec(reordered);
    BatchHeader batch = batch(0, 2, 0, -1, 0L);
    KafkaRecord first = new KafkaRecord(0, 1L, bytes("a"), null, List.of());
    KafkaRecord second = new KafkaRecord(1, 2L, null, bytes("b"), List.of());

    for (int i = 0; i < 3; i++) {
      assertThat(a.fromRow(a.toRow(0, batch, first))).isEqualTo(first);
      assertThat(b.fromRow(b.toRow(0, batch, second))).isEqualTo(second);
    }
  }

  @Test
  void aSchemaWithoutALayoutColumnIsRefused() {
    Schema noHeaders =
        new Schema(
            TopicTableLayout.SCHEMA.asStruct().field(TopicTableLayout.KAFKA),
            TopicTableLayout.SCHEMA.asStruct().field("key"),
            TopicTableLayout.SCHEMA.asStruct().field("value"));
    assertThatThrownBy(() -> new RowCodec(noHeaders))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'headers'");
  }

  private static BatchHeader batch(
      long baseOffset, int records, int attributes, int baseSequence, long maxTimestamp) {
    return new BatchHeader(
        baseOffset,
        0,
        LEADER_EPOCH,
        (byte) 2,
        0,
        (short) attributes,
        records - 1,
        0L,
        maxTimestamp,
        PRODUCER_ID,
        PRODUCER_EPOCH,
        baseSequence,
        records);
  }

  private static BatchHeader transactional(BatchHeader b) {
    return withAttributes(b, b.attributes() | BatchHeader.TRANSACTIONAL_MASK);
  }

  private static BatchHeader logAppendTime(BatchHeader b) {
    return withAttributes(b, b.attributes() | BatchHeader.TIMESTAMP_TYPE_MASK);
  }

  private static BatchHeader withAttributes(BatchHeader b, int attributes) {
    return new BatchHeader(
        b.baseOffset(),
        b.batchLength(),
        b.partitionLeaderEpoch(),
        b.magic(),
        b.crc(),
        (short) attributes,
        b.lastOffsetDelta(),
        b.baseTimestamp(),
        b.maxTimestamp(),
        b.producerId(),
        b.producerEpoch(),
        b.baseSequence(),
        b.recordCount());
  }

  private static Record kafka(Record row) {
    return (Record) row.getField(TopicTableLayout.KAFKA);
  }

  @SuppressWarnings("unchecked")
  private static List<String> headers(Record row) {
    List<String> out = new ArrayList<>();
    for (Record h : (List<Record>) row.getField("headers")) {
      ByteBuffer value = (ByteBuffer) h.getField("value");
      out.add(
          h.getField("key")
              + "="
              + (value == null
                  ? "null"
                  : StandardCharsets.UTF_8.decode(value.duplicate()).toString()));
    }
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
