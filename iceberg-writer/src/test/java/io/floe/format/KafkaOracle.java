package io.floe.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/** Compares our codec against kafka-clients (the oracle). */
final class KafkaOracle {
  private KafkaOracle() {}

  /** Statistics of one verified file. */
  record Stats(
      int batches, long records, int compressed, int control, int transactional, int empty) {}

  /**
   * Reads {@code file} with SegmentBatchReader and with kafka-clients' FileRecords, compares every
   * header and record field, and re-encodes every batch (see {@link #verifyReencode}).
   */
  static Stats verifyFile(Path file) throws IOException {
    int batches = 0, compressed = 0, control = 0, txn = 0, empty = 0;
    long records = 0;
    MemoryRecords mem = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(file)));
    try (FileRecords fr = FileRecords.open(file.toFile(), false);
        SegmentBatchReader reader = SegmentBatchReader.open(file)) {
      Iterator<FileChannelRecordBatch> kit = fr.batches().iterator();
      Iterator<MutableRecordBatch> mit = mem.batches().iterator();
      while (reader.hasNext()) {
        RecordBatch ours = reader.next();
        assertThat(kit.hasNext()).as("kafka has a batch at position %d", ours.position()).isTrue();
        FileChannelRecordBatch k = kit.next();
        DefaultRecordBatch d = (DefaultRecordBatch) mit.next();
        assertThat(ours.position()).isEqualTo(k.position());
        k.ensureValid();
        compareHeader(ours.header(), k, d);
        List<KafkaRecord> recs = ours.records();
        compareRecords(ours.header(), recs, k);
        verifyReencode(ours, recs, k);
        batches++;
        records += recs.size();
        if (ours.header().compression() != Compression.NONE) compressed++;
        if (ours.header().isControl()) control++;
        if (ours.header().isTransactional()) txn++;
        if (recs.isEmpty()) empty++;
      }
      assertThat(kit.hasNext()).as("kafka has more batches than we read").isFalse();
    }
    return new Stats(batches, records, compressed, control, txn, empty);
  }

  static void compareHeader(
      BatchHeader h, org.apache.kafka.common.record.internal.RecordBatch k, DefaultRecordBatch d) {
    String at = "batch at offset " + k.baseOffset();
    assertThat(h.baseOffset()).as(at).isEqualTo(k.baseOffset());
    assertThat(h.sizeInBytes()).as(at).isEqualTo(k.sizeInBytes());
    assertThat(h.batchLength()).as(at).isEqualTo(k.sizeInBytes() - 12);
    assertThat(h.partitionLeaderEpoch()).as(at).isEqualTo(k.partitionLeaderEpoch());
    assertThat(h.magic()).as(at).isEqualTo(k.magic());
    assertThat(h.crc() & 0xffffffffL).as(at).isEqualTo(k.checksum());
    assertThat(h.compression().id()).as(at).isEqualTo(k.compressionType().id);
    assertThat(h.timestampType().name()).as(at).isEqualTo(k.timestampType().name());
    assertThat(h.isTransactional()).as(at).isEqualTo(k.isTransactional());
    assertThat(h.isControl()).as(at).isEqualTo(k.isControlBatch());
    assertThat(h.hasDeleteHorizon()).as(at).isEqualTo(k.deleteHorizonMs().isPresent());
    assertThat(h.lastOffset()).as(at).isEqualTo(k.lastOffset());
    assertThat(h.maxTimestamp()).as(at).isEqualTo(k.maxTimestamp());
    assertThat(h.producerId()).as(at).isEqualTo(k.producerId());
    assertThat(h.producerEpoch()).as(at).isEqualTo(k.producerEpoch());
    assertThat(h.baseSequence()).as(at).isEqualTo(k.baseSequence());
    assertThat(h.recordCount()).as(at).isEqualTo(k.countOrNull());
    if (d != null) {
      assertThat(h.baseTimestamp()).as(at).isEqualTo(d.baseTimestamp());
      assertThat(h.lastOffsetDelta()).as(at).isEqualTo((int) (d.lastOffset() - d.baseOffset()));
      if (h.hasDeleteHorizon()) {
        assertThat(d.deleteHorizonMs().getAsLong()).isEqualTo(h.baseTimestamp());
      }
    }
  }

  static void compareRecords(
      BatchHeader h,
      List<KafkaRecord> ours,
      org.apache.kafka.common.record.internal.RecordBatch k) {
    List<Record> theirs = new ArrayList<>();
    for (Record r : k) {
      theirs.add(r);
    }
    assertThat(ours).hasSameSizeAs(theirs);
    for (int i = 0; i < ours.size(); i++) {
      KafkaRecord o = ours.get(i);
      Record t = theirs.get(i);
      String at = "record " + t.offset();
      assertThat(o.offset()).as(at).isEqualTo(t.offset());
      long expectedTs =
          h.timestampType() == TimestampType.LOG_APPEND_TIME ? h.maxTimestamp() : o.timestamp();
      assertThat(t.timestamp()).as(at).isEqualTo(expectedTs);
      assertThat(o.key()).as(at + " key").isEqualTo(t.hasKey() ? bytes(t.key()) : null);
      assertThat(o.value()).as(at + " value").isEqualTo(t.hasValue() ? bytes(t.value()) : null);
      Header[] th = t.headers();
      assertThat(o.headers()).as(at + " headers").hasSize(th.length);
      for (int j = 0; j < th.length; j++) {
        assertThat(o.headers().get(j).key()).isEqualTo(th[j].key());
        assertThat(o.headers().get(j).value()).isEqualTo(th[j].value());
      }
    }
  }

  /**
   * Re-encodes with BatchEncoder: uncompressed batches must be byte-identical; compressed ones must
   * have identical uncompressed records sections and read back in kafka-clients with identical
   * fields and a valid CRC. Encoding twice must give identical bytes.
   */
  static void verifyReencode(
      RecordBatch ours,
      List<KafkaRecord> recs,
      org.apache.kafka.common.record.internal.RecordBatch original) {
    BatchHeader h = ours.header();
    ByteBuffer re = BatchEncoder.encode(h, recs);
    ByteBuffer again = BatchEncoder.encode(h, recs);
    assertThat(again).as("deterministic encoding").isEqualTo(re);
    assertThat(BatchEncoder.encodeRecords(h, recs)).isEqualTo(ours.uncompressedRecordBytes());
    if (h.compression() == Compression.NONE || recs.isEmpty()) {
      assertThat(re)
          .as("byte-identical re-encode of batch at %d", h.baseOffset())
          .isEqualTo(ours.rawBytes());
      return;
    }
    MemoryRecords mr = MemoryRecords.readableRecords(re.duplicate());
    List<MutableRecordBatch> kb = new ArrayList<>();
    mr.batches().forEach(kb::add);
    assertThat(kb).hasSize(1);
    MutableRecordBatch k = kb.get(0);
    k.ensureValid();
    RecordBatch back = RecordBatch.parse(re, 0);
    BatchHeader h2 = back.header();
    assertThat(
            new BatchHeader(
                h2.baseOffset(),
                h.batchLength(),
                h2.partitionLeaderEpoch(),
                h2.magic(),
                h.crc(),
                h2.attributes(),
                h2.lastOffsetDelta(),
                h2.baseTimestamp(),
                h2.maxTimestamp(),
                h2.producerId(),
                h2.producerEpoch(),
                h2.baseSequence(),
                h2.recordCount()))
        .isEqualTo(h);
    compareHeader(h2, k, (DefaultRecordBatch) k);
    assertThat(k.sizeInBytes()).isEqualTo(re.remaining());
    compareRecords(h2, back.records(), k);
    compareRecords(h2, recs, k);
    assertThat(back.records()).isEqualTo(recs);
    // also the kafka-side view must equal kafka's view of the original
    List<Record> a = new ArrayList<>();
    original.forEach(a::add);
    List<Record> b = new ArrayList<>();
    k.forEach(b::add);
    assertThat(b).hasSameSizeAs(a);
    for (int i = 0; i < a.size(); i++) {
      assertThat(b.get(i).offset()).isEqualTo(a.get(i).offset());
      assertThat(b.get(i).timestamp()).isEqualTo(a.get(i).timestamp());
      assertThat(b.get(i).key()).isEqualTo(a.get(i).key());
      assertThat(b.get(i).value()).isEqualTo(a.get(i).value());
      assertThat(b.get(i).headers()).isEqualTo(a.get(i).headers());
    }
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
