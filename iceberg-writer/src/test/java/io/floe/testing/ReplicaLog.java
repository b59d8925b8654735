package io.floe.testing;

import io.floe.format.Compression;
import io.floe.format.KafkaRecord;
import io.floe.format.RecordBatch;
import io.floe.format.SegmentBatchReader;
import io.floe.format.TimestampType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One partition's log as every replica holds it (the same batches at the same offsets), from which
 * replica segments are cut at batch boundaries: replicas roll their own segments, so after a leader
 * change the new leader's segments overlap the old leader's only in part. The approach of {@code
 * io.floe.tier.ReplicaOverlapTest}, reusable by several brokers' tests.
 */
public final class ReplicaLog {
  private static final Compression[] CODECS = {Compression.NONE, Compression.ZSTD, Compression.LZ4};

  private final byte[] log;
  private final List<Long> positions = new ArrayList<>();
  private final List<Long> baseOffsets = new ArrayList<>();
  private final List<List<KafkaRecord>> records = new ArrayList<>();

  private ReplicaLog(byte[] log, Path scratch) throws IOException {
    this.log = log;
    Path whole = Files.write(Files.createTempFile(scratch, "replica", ".log"), log);
    try (SegmentBatchReader reader = SegmentBatchReader.open(whole)) {
      while (reader.hasNext()) {
        RecordBatch batch = reader.next();
        positions.add(batch.position());
        baseOffsets.add(batch.header().baseOffset());
        records.add(batch.records());
      }
    } finally {
      Files.delete(whole);
    }
    positions.add((long) log.length);
  }

  /**
   * A log of {@code batches} batches (uncompressed, zstd and lz4 in turn, 1 to 6 records of about
   * {@code valueSize} bytes each), generated from {@code seed}; {@code scratch} holds a temporary
   * copy while it is indexed.
   */
  public static ReplicaLog generate(long seed, int batches, int valueSize, Path scratch) {
    SegmentGenerator gen = SegmentGenerator.seeded(seed);
    for (int i = 0; i < batches; i++) {
      gen.batch(CODECS[i % CODECS.length], TimestampType.CREATE_TIME, 1 + i % 6, valueSize);
    }
    try {
      return new ReplicaLog(gen.toBytes(), scratch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int batches() {
    return baseOffsets.size();
  }

  /** The offset of the first record of batch {@code batch}. */
  public long baseOffset(int batch) {
    return baseOffsets.get(batch);
  }

  /** Writes the segment made of batches [fromBatch, toBatch) to {@code file}. */
  public Path segment(Path file, int fromBatch, int toBatch) {
    int from = (int) (long) positions.get(fromBatch);
    int to = (int) (long) positions.get(toBatch);
    try {
      return Files.write(file, Arrays.copyOfRange(log, from, to));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The records of batches [fromBatch, toBatch), in offset order. */
  public List<KafkaRecord> records(int fromBatch, int toBatch) {
    List<KafkaRecord> out = new ArrayList<>();
    for (int b = fromBatch; b < toBatch; b++) {
      out.addAll(records.get(b));
    }
    return out;
  }
}
