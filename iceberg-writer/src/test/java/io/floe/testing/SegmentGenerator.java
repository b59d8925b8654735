package io.floe.testing;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * Seeded, deterministic generator of REAL Kafka segment files, built with kafka-clients 4.3.1
 * (MemoryRecordsBuilder / MemoryRecords.withEndTransactionMarker / FileRecords) as the oracle. Each
 * fluent call appends one batch at {@link #nextOffset()} (except {@link #leaderEpoch} and {@link
 * #startOffset}, which set state for following batches; {@link #randomMix} appends many).
 */
public final class SegmentGenerator {
  private static final String[] HEADER_KEYS = {
    "trace-id", "dup", "dup", "h", "", "ünï-キー", "content-type"
  };
  private static final Compression[] CODECS = Compression.values();

  private final Random rnd;
  private final List<MemoryRecords> batches = new ArrayList<>();
  private final Map<Long, Integer> nextSeq = new HashMap<>();
  private final Map<Long, Long> openTxnFirstOffset = new HashMap<>();
  private final Map<Long, Short> txnEpochs = new HashMap<>();
  private final List<long[]> aborted = new ArrayList<>();
  private long startOffset = 0;
  private long next = 0;
  private int leaderEpoch = 0;
  private long clock = 1_700_000_000_000L;

  private SegmentGenerator(long seed) {
    this.rnd = new Random(seed);
    this.clock += rnd.nextInt(1_000_000);
  }

  public static SegmentGenerator seeded(long seed) {
    return new SegmentGenerator(seed);
  }

  /** Sets the base offset of the first batch; must be called before any batch is appended. */
  public SegmentGenerator startOffset(long base) {
    if (!batches.isEmpty()) {
      throw new IllegalStateException("startOffset must be set before appending batches");
    }
    this.startOffset = base;
    this.next = base;
    return this;
  }

  /** Following batches use this partitionLeaderEpoch. */
  public SegmentGenerator leaderEpoch(int epoch) {
    this.leaderEpoch = epoch;
    return this;
  }

  /** Moves the clock the following batches take their timestamps from by {@code millis}. */
  public SegmentGenerator advanceClock(long millis) {
    clock += millis;
    return this;
  }

  public long nextOffset() {
    return next;
  }

  public int batchCount() {
    return batches.size();
  }

  /** {producerId, firstOffset, lastOffset = offset of the abort marker (as Kafka's AbortedTxn)}. */
  public List<long[]> abortedTransactions() {
    List<long[]> out = new ArrayList<>();
    for (long[] a : aborted) {
      out.add(a.clone());
    }
    return out;
  }

  /**
   * Random keys (some null, some empty), values (some null/empty), headers with duplicate keys and
   * null values.
   */
  public SegmentGenerator batch(
      Compression codec, TimestampType tsType, int records, int valueSize) {
    return append(
        codec,
        tsType,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE,
        false,
        randomRecords(records, valueSize));
  }

  /** A batch of records with these keys and values (either may hold nulls) and no headers. */
  public SegmentGenerator keyValueBatch(Compression codec, List<byte[]> keys, List<byte[]> values) {
    List<Rec> recs = new ArrayList<>(values.size());
    for (int i = 0; i < values.size(); i++) {
      tick();
      recs.add(new Rec(clock, keys.get(i), values.get(i), new Header[0]));
    }
    return append(
        codec,
        TimestampType.CREATE_TIME,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE,
        false,
        recs);
  }

  public SegmentGenerator idempotentBatch(
      long producerId, short epoch, int baseSeq, Compression codec, int records) {
    nextSeq.put(producerId, baseSeq + records);
    return append(
        codec,
        TimestampType.CREATE_TIME,
        producerId,
        epoch,
        baseSeq,
        false,
        randomRecords(records, 64));
  }

  public SegmentGenerator transactionalBatch(
      long producerId, short epoch, Compression codec, int records) {
    return transactionalBatch(producerId, epoch, codec, TimestampType.CREATE_TIME, records);
  }

  public SegmentGenerator transactionalBatch(
      long producerId, short epoch, Compression codec, TimestampType tsType, int records) {
    int seq = nextSeq.getOrDefault(producerId, 0);
    nextSeq.put(producerId, seq + records);
    openTxnFirstOffset.putIfAbsent(producerId, next);
    return append(codec, tsType, producerId, epoch, seq, true, randomRecords(records, 64));
  }

  public SegmentGenerator commitMarker(long producerId, short epoch) {
    return marker(producerId, epoch, ControlRecordType.COMMIT);
  }

  public SegmentGenerator abortMarker(long producerId, short epoch) {
    return marker(producerId, epoch, ControlRecordType.ABORT);
  }

  private SegmentGenerator marker(long producerId, short epoch, ControlRecordType type) {
    long offset = next;
    tick();
    MemoryRecords m =
        MemoryRecords.withEndTransactionMarker(
            offset,
            clock,
            leaderEpoch,
            producerId,
            epoch,
            new EndTransactionMarker(type, rnd.nextInt(50)));
    Long first = openTxnFirstOffset.remove(producerId);
    if (type == ControlRecordType.ABORT && first != null) {
      aborted.add(new long[] {producerId, first, offset});
    }
    batches.add(m);
    next = offset + 1;
    return this;
  }

  /** One record whose value has this many bytes, uncompressed. */
  public SegmentGenerator bigRecord(int bytes) {
    byte[] v = new byte[bytes];
    rnd.nextBytes(v);
    tick();
    List<Rec> one =
        List.of(
            new Rec(
                clock,
                "big".getBytes(StandardCharsets.UTF_8),
                v,
                new Header[] {
                  new RecordHeader("size", Integer.toString(bytes).getBytes(StandardCharsets.UTF_8))
                }));
    return append(
        Compression.NONE,
        TimestampType.CREATE_TIME,
        RecordBatch.NO_PRODUCER_ID,
        RecordBatch.NO_PRODUCER_EPOCH,
        RecordBatch.NO_SEQUENCE,
        false,
        one);
  }

  /**
   * A batch with no records, as the log cleaner leaves behind
   * (DefaultRecordBatch.writeEmptyHeader), covering offsets [next, next + lastOffsetDelta].
   */
  public SegmentGenerator emptyBatch(
      long producerId,
      short epoch,
      int baseSeq,
      int lastOffsetDelta,
      TimestampType tsType,
      boolean transactional) {
    ByteBuffer buf = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    tick();
    DefaultRecordBatch.writeEmptyHeader(
        buf,
        RecordBatch.MAGIC_VALUE_V2,
        producerId,
        epoch,
        baseSeq,
        next,
        next + lastOffsetDelta,
        leaderEpoch,
        kafka(tsType),
        clock,
        transactional,
        false);
    buf.position(0);
    buf.limit(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    batches.add(MemoryRecords.readableRecords(buf));
    next += lastOffsetDelta + 1;
    return this;
  }

  /**
   * A batch with the delete-horizon attribute set (as the log cleaner writes: baseTimestamp =
   * horizon).
   */
  public SegmentGenerator deleteHorizonBatch(Compression codec, long deleteHorizonMs, int records) {
    List<Rec> recs = randomRecords(records, 32);
    MemoryRecordsBuilder b =
        new MemoryRecordsBuilder(
            new ByteBufferOutputStream(256),
            RecordBatch.MAGIC_VALUE_V2,
            kafka(codec),
            org.apache.kafka.common.record.TimestampType.CREATE_TIME,
            next,
            RecordBatch.NO_TIMESTAMP,
            RecordBatch.NO_PRODUCER_ID,
            RecordBatch.NO_PRODUCER_EPOCH,
            RecordBatch.NO_SEQUENCE,
            false,
            false,
            leaderEpoch,
            Integer.MAX_VALUE,
            deleteHorizonMs);
    return finish(b, recs);
  }

  /** A legacy batch (magic 0 or 1), to test rejection. */
  public SegmentGenerator legacyBatch(byte magic, Compression codec, int records) {
    MemoryRecordsBuilder b =
        MemoryRecords.builder(
            ByteBuffer.allocate(256),
            magic,
            kafka(codec),
            org.apache.kafka.common.record.TimestampType.CREATE_TIME,
            next);
    for (int i = 0; i < records; i++) {
      tick();
      b.appendWithOffset(next + i, clock, randomKey(), randomValue(16));
    }
    batches.add(b.build());
    next += records;
    return this;
  }

  /**
   * A seeded mix of everything: plain batches of every codec and both timestamp types (many with
   * one record), idempotent producers, interleaved committed and aborted transactions of several
   * producers, leader epoch bumps, big records, empty batches. Transactions still open at the end
   * stay open.
   */
  public SegmentGenerator randomMix(int count) {
    long[] idem = {1001, 1002, 1003};
    long[] txn = {2001, 2002, 2003, 2004};
    for (int i = 0; i < count; i++) {
      int r = rnd.nextInt(100);
      Compression codec = CODECS[rnd.nextInt(CODECS.length)];
      TimestampType ts =
          rnd.nextInt(4) == 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
      if (r < 30) {
        batch(codec, ts, rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(40) : 1, rnd.nextInt(300));
      } else if (r < 40) {
        long pid = idem[rnd.nextInt(idem.length)];
        int n = 1 + rnd.nextInt(5);
        idempotentBatch(pid, (short) 0, nextSeq.getOrDefault(pid, 0), codec, n);
      } else if (r < 80) {
        long pid = txn[rnd.nextInt(txn.length)];
        short epoch = txnEpochs.getOrDefault(pid, (short) 0);
        if (!openTxnFirstOffset.containsKey(pid) || rnd.nextInt(10) < 5) {
          transactionalBatch(
              pid, epoch, codec, ts, 1 + (rnd.nextInt(3) == 0 ? rnd.nextInt(20) : 0));
        } else if (rnd.nextInt(10) < 6) {
          commitMarker(pid, epoch);
        } else {
          abortMarker(pid, epoch);
          if (rnd.nextInt(4) == 0) { // fenced: new epoch, sequence restarts
            txnEpochs.put(pid, (short) (epoch + 1));
            nextSeq.put(pid, 0);
          }
        }
      } else if (r < 82) {
        leaderEpoch(leaderEpoch + 1);
      } else if (r < 83) {
        bigRecord(1024 + rnd.nextInt(100_000));
      } else if (r < 85) {
        emptyBatch(
            RecordBatch.NO_PRODUCER_ID,
            RecordBatch.NO_PRODUCER_EPOCH,
            RecordBatch.NO_SEQUENCE,
            rnd.nextInt(5),
            ts,
            false);
      } else {
        batch(codec, ts, 1, rnd.nextInt(100));
      }
    }
    return this;
  }

  /** Writes the segment (.log) with FileRecords, replacing any existing file. */
  public Path writeTo(Path file) throws IOException {
    Files.deleteIfExists(file);
    try (FileRecords fr = FileRecords.open(file.toFile())) {
      for (MemoryRecords m : batches) {
        fr.append(MemoryRecords.readableRecords(m.buffer().duplicate()));
      }
      fr.flush();
    }
    return file;
  }

  /** The generated batches concatenated, in memory. */
  public byte[] toBytes() {
    int size = 0;
    for (MemoryRecords m : batches) {
      size += m.sizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    for (MemoryRecords m : batches) {
      out.put(m.buffer().duplicate());
    }
    return out.array();
  }

  // ---------------------------------------------------------------------------------------------

  private record Rec(long timestamp, byte[] key, byte[] value, Header[] headers) {}

  private SegmentGenerator append(
      Compression codec,
      TimestampType tsType,
      long pid,
      short epoch,
      int seq,
      boolean txn,
      List<Rec> recs) {
    tick();
    long logAppendTime =
        tsType == TimestampType.LOG_APPEND_TIME
            ? clock + rnd.nextInt(1000)
            : RecordBatch.NO_TIMESTAMP;
    MemoryRecordsBuilder b =
        MemoryRecords.builder(
            ByteBuffer.allocate(256),
            RecordBatch.MAGIC_VALUE_V2,
            kafka(codec),
            kafka(tsType),
            next,
            logAppendTime,
            pid,
            epoch,
            seq,
            txn,
            leaderEpoch);
    return finish(b, recs);
  }

  private SegmentGenerator finish(MemoryRecordsBuilder b, List<Rec> recs) {
    if (recs.isEmpty()) {
      throw new IllegalArgumentException(
          "kafka-clients cannot build a batch with no records; use emptyBatch");
    }
    long offset = next;
    for (Rec r : recs) {
      b.appendWithOffset(offset++, r.timestamp, r.key, r.value, r.headers);
    }
    batches.add(b.build());
    next = offset;
    return this;
  }

  private void tick() {
    clock += rnd.nextInt(50);
  }

  private List<Rec> randomRecords(int n, int valueSize) {
    List<Rec> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      tick();
      long ts;
      int t = rnd.nextInt(100);
      if (t < 2) {
        ts = RecordBatch.NO_TIMESTAMP; // -1: allowed by Kafka, negative delta
      } else {
        ts = clock + rnd.nextInt(41) - 20; // out-of-order within a batch: negative deltas too
      }
      out.add(new Rec(ts, randomKey(), randomValue(valueSize), randomHeaders()));
    }
    return out;
  }

  private byte[] randomKey() {
    int k = rnd.nextInt(100);
    if (k < 15) {
      return null;
    }
    if (k < 25) {
      return new byte[0];
    }
    if (k < 60) {
      return ("key-" + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
    }
    byte[] b = new byte[1 + rnd.nextInt(40)];
    rnd.nextBytes(b);
    return b;
  }

  private byte[] randomValue(int size) {
    int k = rnd.nextInt(100);
    if (k < 10) {
      return null;
    }
    if (k < 20 || size == 0) {
      return new byte[0];
    }
    int len = size / 2 + rnd.nextInt(size / 2 + 1);
    byte[] b = new byte[len];
    // half compressible text, half random
    int split = len / 2;
    String words = "the quick brown fox jumps over the lazy dog ";
    for (int i = 0; i < split; i++) {
      b[i] = (byte) words.charAt((i + k) % words.length());
    }
    byte[] noise = new byte[len - split];
    rnd.nextBytes(noise);
    System.arraycopy(noise, 0, b, split, noise.length);
    return b;
  }

  private Header[] randomHeaders() {
    int n = rnd.nextInt(100) < 40 ? 0 : 1 + rnd.nextInt(4);
    Header[] hs = new Header[n];
    for (int i = 0; i < n; i++) {
      String key = HEADER_KEYS[rnd.nextInt(HEADER_KEYS.length)];
      byte[] v;
      int k = rnd.nextInt(10);
      if (k < 2) {
        v = null;
      } else if (k < 3) {
        v = new byte[0];
      } else {
        v = new byte[1 + rnd.nextInt(20)];
        rnd.nextBytes(v);
      }
      hs[i] = new RecordHeader(key, v);
    }
    return hs;
  }

  public static org.apache.kafka.common.compress.Compression kafka(Compression c) {
    switch (c) {
      case NONE:
        return org.apache.kafka.common.compress.Compression.NONE;
      case GZIP:
        return org.apache.kafka.common.compress.Compression.gzip().build();
      case SNAPPY:
        return org.apache.kafka.common.compress.Compression.snappy().build();
      case LZ4:
        return org.apache.kafka.common.compress.Compression.lz4().build();
      case ZSTD:
        return org.apache.kafka.common.compress.Compression.zstd().build();
      default:
        throw new AssertionError(c);
    }
  }

  public static org.apache.kafka.common.record.TimestampType kafka(TimestampType t) {
    return t == TimestampType.CREATE_TIME
        ? org.apache.kafka.common.record.TimestampType.CREATE_TIME
        : org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME;
  }
}
