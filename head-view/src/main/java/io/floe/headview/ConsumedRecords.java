package io.floe.headview;

import io.floe.format.RecordHeader;
import io.floe.format.TimestampType;
import io.floe.rows.ConsumedRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Turns what the Kafka consumer returns into the row model's input. */
final class ConsumedRecords {
  private ConsumedRecords() {}

  /** The fields of a consumed record that a row holds, without the Kafka client's types. */
  static ConsumedRecord of(ConsumerRecord<ByteBuffer, ByteBuffer> r) {
    List<RecordHeader> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new RecordHeader(h.key(), h.value()));
    }
    return new ConsumedRecord(
        r.partition(),
        r.offset(),
        r.timestamp(),
        r.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
            ? TimestampType.LOG_APPEND_TIME
            : TimestampType.CREATE_TIME,
        r.leaderEpoch().orElse(-1),
        r.key(),
        r.value(),
        headers);
  }
}
