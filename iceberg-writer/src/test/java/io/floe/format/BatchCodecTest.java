package io.floe.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.testing.SegmentGenerator;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class BatchCodecTest {
  @TempDir Path dir;

  static List<Arguments> codecsAndTimestampTypes() {
    List<Arguments> out = new ArrayList<>();
    for (Compression c : Compression.values()) {
      for (TimestampType t : TimestampType.values()) {
        out.add(Arguments.of(c, t));
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("codecsAndTimestampTypes")
  void everyCodecAndTimestampType(Compression codec, TimestampType ts) throws Exception {
    SegmentGenerator g =
        SegmentGenerator.seeded(codec.ordinal() * 10L + ts.ordinal())
            .startOffset(1000)
            .batch(codec, ts, 1, 10)
            .batch(codec, ts, 50, 200)
            .leaderEpoch(7)
            .batch(
                codec, ts, 500, 1000) // > 64 KiB uncompressed: several lz4 blocks / snappy chunks
            .batch(codec, ts, 3, 0);
    Path f = g.writeTo(dir.resolve("00000000000000001000.log"));
    KafkaOracle.Stats s = KafkaOracle.verifyFile(f);
    assertThat(s.batches()).isEqualTo(4);
    assertThat(s.records()).isEqualTo(554);
    assertThat(g.nextOffset()).isEqualTo(1554);
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      RecordBatch b = r.next();
      assertThat(b.header().baseOffset()).isEqualTo(1000);
      assertThat(b.header().compression()).isEqualTo(codec);
      assertThat(b.header().timestampType()).isEqualTo(ts);
      assertThat(b.header().partitionLeaderEpoch()).isEqualTo(0);
      r.next();
      assertThat(r.next().header().partitionLeaderEpoch()).isEqualTo(7);
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void idempotentTransactionalAndControl(Compression codec) throws Exception {
    SegmentGenerator g =
        SegmentGenerator.seeded(42)
            .idempotentBatch(77, (short) 3, 100, codec, 5)
            .transactionalBatch(88, (short) 1, codec, 4)
            .transactionalBatch(99, (short) 2, codec, 2)
            .transactionalBatch(88, (short) 1, codec, 3)
            .commitMarker(88, (short) 1)
            .abortMarker(99, (short) 2);
    Path f = g.writeTo(dir.resolve("txn.log"));
    KafkaOracle.Stats s = KafkaOracle.verifyFile(f);
    assertThat(s.batches()).isEqualTo(6);
    assertThat(s.control()).isEqualTo(2);
    assertThat(s.transactional()).isEqualTo(5);
    assertThat(g.abortedTransactions()).containsExactly(new long[] {99, 9, 15});
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      BatchHeader h = r.next().header();
      assertThat(h.producerId()).isEqualTo(77);
      assertThat(h.producerEpoch()).isEqualTo((short) 3);
      assertThat(h.baseSequence()).isEqualTo(100);
      assertThat(h.isTransactional()).isFalse();
      r.next();
      r.next();
      BatchHeader third = r.next().header();
      assertThat(third.baseSequence()).isEqualTo(4); // second batch of producer 88
      RecordBatch commit = r.next();
      assertThat(commit.header().isControl()).isTrue();
      assertThat(commit.header().isTransactional()).isTrue();
      KafkaRecord marker = commit.records().get(0);
      // control key: version int16 = 0, type int16 = 1 (commit)
      assertThat(marker.key()).containsExactly(0, 0, 0, 1);
      RecordBatch abort = r.next();
      assertThat(abort.records().get(0).key()).containsExactly(0, 0, 0, 0);
      assertThat(r.hasNext()).isFalse();
    }
  }

  @Test
  void headersKeysAndValuesEdgeCases() throws Exception {
    SegmentGenerator g = SegmentGenerator.seeded(7);
    for (Compression c : Compression.values()) {
      g.batch(c, TimestampType.CREATE_TIME, 300, 20);
    }
    Path f = g.writeTo(dir.resolve("edge.log"));
    KafkaOracle.verifyFile(f);
    boolean nullKey = false,
        emptyKey = false,
        nullValue = false,
        emptyValue = false,
        dupHeader = false,
        nullHeaderValue = false,
        negativeDelta = false;
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      while (r.hasNext()) {
        RecordBatch b = r.next();
        for (KafkaRecord rec : b.records()) {
          nullKey |= rec.key() == null;
          emptyKey |= rec.key() != null && rec.key().length == 0;
          nullValue |= rec.value() == null;
          emptyValue |= rec.value() != null && rec.value().length == 0;
          nullHeaderValue |= rec.headers().stream().anyMatch(h -> h.value() == null);
          dupHeader |=
              rec.headers().stream().map(RecordHeader::key).distinct().count()
                  < rec.headers().size();
          negativeDelta |= rec.timestamp() < b.header().baseTimestamp();
        }
      }
    }
    assertThat(
            List.of(
                nullKey,
                emptyKey,
                nullValue,
                emptyValue,
                dupHeader,
                nullHeaderValue,
                negativeDelta))
        .containsOnly(true);
  }

  @Test
  void bigRecords() throws Exception {
    SegmentGenerator g =
        SegmentGenerator.seeded(3)
            .bigRecord(1 << 20)
            .bigRecord((1 << 20) + 12345)
            .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 2, 10)
            .bigRecord(3 * (1 << 20));
    Path f = g.writeTo(dir.resolve("big.log"));
    KafkaOracle.Stats s = KafkaOracle.verifyFile(f);
    assertThat(s.batches()).isEqualTo(4);
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      assertThat(r.next().records().get(0).value()).hasSize(1 << 20);
      assertThat(r.next().records().get(0).value()).hasSize((1 << 20) + 12345);
      r.next();
      assertThat(r.next().records().get(0).value()).hasSize(3 << 20);
    }
  }

  @Test
  void bigCompressedBatches() throws Exception {
    SegmentGenerator g = SegmentGenerator.seeded(11);
    for (Compression c : Compression.values()) {
      g.batch(c, TimestampType.LOG_APPEND_TIME, 2000, 2000); // ~2 MiB uncompressed each
    }
    KafkaOracle.Stats s = KafkaOracle.verifyFile(g.writeTo(dir.resolve("bigc.log")));
    assertThat(s.records()).isEqualTo(10_000);
  }

  @Test
  void emptyBatchesAndDeleteHorizon() throws Exception {
    SegmentGenerator g =
        SegmentGenerator.seeded(5)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 2, 10)
            .emptyBatch(55, (short) 1, 10, 4, TimestampType.CREATE_TIME, true)
            .emptyBatch(-1, (short) -1, -1, 0, TimestampType.LOG_APPEND_TIME, false)
            .deleteHorizonBatch(Compression.NONE, 1_800_000_000_000L, 3)
            .deleteHorizonBatch(Compression.LZ4, 1_800_000_000_000L, 3);
    Path f = g.writeTo(dir.resolve("empty.log"));
    KafkaOracle.Stats s = KafkaOracle.verifyFile(f);
    assertThat(s.empty()).isEqualTo(2);
    try (SegmentBatchReader r = SegmentBatchReader.open(f)) {
      r.next();
      RecordBatch e = r.next();
      assertThat(e.header().recordCount()).isZero();
      assertThat(e.header().baseOffset()).isEqualTo(2);
      assertThat(e.header().lastOffset()).isEqualTo(6);
      assertThat(e.header().sizeInBytes()).isEqualTo(BatchHeader.HEADER_SIZE);
      assertThat(e.records()).isEmpty();
      assertThat(e.uncompressedRecordBytes()).isEmpty();
      r.next();
      BatchHeader dh = r.next().header();
      assertThat(dh.hasDeleteHorizon()).isTrue();
      assertThat(dh.baseTimestamp()).isEqualTo(1_800_000_000_000L);
    }
    assertThat(g.nextOffset()).isEqualTo(2 + 5 + 1 + 3 + 3);
  }

  @Test
  void randomMixOfThousandsOfBatches() throws Exception {
    SegmentGenerator g = SegmentGenerator.seeded(20240601L).startOffset(5_000_000L).randomMix(5000);
    Path f = g.writeTo(dir.resolve("mix.log"));
    KafkaOracle.Stats s = KafkaOracle.verifyFile(f);
    assertThat(s.batches()).isGreaterThanOrEqualTo(4800);
    assertThat(s.compressed()).isGreaterThan(1000);
    assertThat(s.control()).isGreaterThan(100);
    assertThat(s.empty()).isGreaterThan(10);
    assertThat(g.abortedTransactions()).hasSizeGreaterThan(10);
    // the generic-stream reader sees the same batches as the file reader
    byte[] all = Files.readAllBytes(f);
    try (SegmentBatchReader a = SegmentBatchReader.open(f);
        SegmentBatchReader b = SegmentBatchReader.of(new ByteArrayInputStream(all), 0)) {
      while (a.hasNext()) {
        assertThat(b.hasNext()).isTrue();
        assertThat(b.next()).isEqualTo(a.next());
      }
      assertThat(b.hasNext()).isFalse();
    }
    // the generator is deterministic
    assertThat(SegmentGenerator.seeded(20240601L).startOffset(5_000_000L).randomMix(5000).toBytes())
        .isEqualTo(all);
  }

  @Test
  void streamReaderReportsSegmentPositions() throws Exception {
    SegmentGenerator g =
        SegmentGenerator.seeded(9)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 2, 10)
            .batch(Compression.GZIP, TimestampType.CREATE_TIME, 2, 10);
    byte[] all = g.toBytes();
    try (SegmentBatchReader r = SegmentBatchReader.of(new ByteArrayInputStream(all), 4096)) {
      RecordBatch first = r.next();
      assertThat(first.position()).isEqualTo(4096);
      assertThat(r.position()).isEqualTo(4096 + first.header().sizeInBytes());
      assertThat(r.next().position()).isEqualTo(4096 + first.header().sizeInBytes());
      assertThat(r.hasNext()).isFalse();
    }
  }
}
