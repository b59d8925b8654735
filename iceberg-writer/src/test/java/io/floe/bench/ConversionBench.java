package io.floe.bench;

import io.floe.iceberg.BatchDirectory;
import io.floe.iceberg.SegmentCommitter;
import io.floe.iceberg.SegmentFiles;
import io.floe.iceberg.SegmentKey;
import io.floe.iceberg.StoredSegment;
import io.floe.iceberg.TieredSegments;
import io.floe.iceberg.TopicTableOptions;
import io.floe.iceberg.TopicTables;
import io.floe.testing.TestCatalogs;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Converts a generated segment of 1 KiB JSON-like records into a table on the local file system and reads it back,
 * measuring segment MiB/s and CPU seconds of the converting thread, and the peak heap seen while converting.
 * Arguments: output JSON file, segment MiB. Runs with whatever -Xmx the caller sets (make bench uses 256m).
 */
public final class ConversionBench {
  public static void main(String[] args) throws Exception {
    Path report = Path.of(args[0]);
    int segmentMib = Integer.parseInt(args[1]);
    Path dir = Files.createTempDirectory("floe-bench");
    List<String> results = new ArrayList<>();
    for (String codec : new String[] {"none", "zstd"}) {
      Path log = dir.resolve(codec + ".log");
      long bytes = generate(log, segmentMib * 1024L * 1024L, codec);
      java.util.Map<String, String> props =
          TestCatalogs.properties(Files.createDirectories(dir.resolve(codec)), TestCatalogs.Storage.LOCAL);
      props.put("io-impl", CountingFileIO.class.getName());
      JdbcCatalog catalog = new JdbcCatalog();
      catalog.initialize(TestCatalogs.CATALOG_NAME, props);
      TieredSegments segments =
          new TieredSegments(new TopicTables(catalog, TopicTableOptions.builder().build()), new SegmentCommitter());
      SegmentKey key = new SegmentKey("bench-" + codec, "id", 0, 0, "s");

      PeakHeap peak = PeakHeap.start();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long cpu0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      TieredSegments.CopyResult copy = segments.copy(key, SegmentFiles.of(log, 0));
      double copySeconds = (System.nanoTime() - t0) / 1e9;
      double copyCpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
      long peakHeap = peak.stop();

      // A consumer catching up, as the broker fetches: 1 MiB from the batch holding the next offset, then close.
      StoredSegment stored = segments.open(key);
      BatchDirectory directory = stored.directory();
      long readBefore = CountingFileIO.BYTES_READ.get();
      long t1 = System.nanoTime();
      long cpu1 = threads.getCurrentThreadCpuTime();
      long served = 0;
      int nextBatch = 0;
      while (nextBatch < directory.size()) {
        long start = directory.encodedPosition(nextBatch);
        byte[] fetched;
        try (InputStream in = stored.fetch(start)) {
          fetched = in.readNBytes(1 << 20);
        }
        long end = start + fetched.length;
        int first = nextBatch;
        while (nextBatch < directory.size() && directory.encodedPosition(nextBatch + 1) <= end) {
          served += directory.get(nextBatch++).encodedSize(); // batches the fetch holds whole
        }
        if (nextBatch == first) { // one batch above the fetch size: the broker reads it whole
          served += directory.get(nextBatch++).encodedSize();
        }
      }
      double fetchSeconds = (System.nanoTime() - t1) / 1e9;
      double fetchCpu = (threads.getCurrentThreadCpuTime() - cpu1) / 1e9;
      long objectStoreBytes = CountingFileIO.BYTES_READ.get() - readBefore;
      stored.close();
      double mib = bytes / (1024.0 * 1024.0);
      String line =
          String.format(
              Locale.ROOT,
              "{\"codec\":\"%s\",\"segment_mib\":%.1f,\"copy_mib_per_s\":%.1f,\"copy_mib_per_cpu_s\":%.1f,"
                  + "\"fetch_mib_per_s\":%.1f,\"fetch_mib_per_cpu_s\":%.1f,\"stored_bytes_ratio\":%.3f,"
                  + "\"copy_peak_heap_mib\":%.1f,\"served_bytes\":%d,\"fetch_read_amplification\":%.3f,"
                  + "\"fetch_streams_reused\":%d}",
              codec, mib, mib / copySeconds, mib / copyCpu, mib / fetchSeconds, mib / fetchCpu,
              copy.storedBytes() / (double) bytes, peakHeap / (1024.0 * 1024.0), served,
              objectStoreBytes / (double) served, stored.reusedStreams());
      System.out.println(line);
      results.add(line);
      catalog.close();
      Files.delete(log);
    }
    Files.createDirectories(report.getParent());
    Files.writeString(report, "[" + String.join(",\n", results) + "]\n");
  }

  /** Writes 1 KiB JSON-like records in producer-sized (16 KiB) batches until the file reaches {@code target} bytes. */
  static long generate(Path file, long target, String codec) throws Exception {
    Random rnd = new Random(1);
    Compression compression = codec.equals("zstd") ? Compression.zstd().build() : Compression.NONE;
    long offset = 0;
    long timestamp = 1_700_000_000_000L;
    try (FileRecords records = FileRecords.open(file.toFile())) {
      while (records.sizeInBytes() < target) {
        MemoryRecordsBuilder b =
            MemoryRecords.builder(ByteBuffer.allocate(20_000), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                TimestampType.CREATE_TIME, offset);
        for (int i = 0; i < 16; i++) {
          byte[] value = jsonRecord(rnd, offset + i);
          b.appendWithOffset(offset + i, timestamp++, ("user-" + rnd.nextInt(10_000)).getBytes(StandardCharsets.UTF_8), value);
        }
        offset += 16;
        records.append(b.build());
      }
      records.flush();
      return records.sizeInBytes();
    }
  }

  static byte[] jsonRecord(Random rnd, long id) {
    StringBuilder sb = new StringBuilder(1100);
    sb.append("{\"id\":").append(id).append(",\"type\":\"").append(rnd.nextBoolean() ? "order" : "refund")
        .append("\",\"amount\":").append(rnd.nextInt(100_000) / 100.0).append(",\"items\":[");
    while (sb.length() < 980) {
      sb.append("{\"sku\":\"SKU-").append(rnd.nextInt(5000)).append("\",\"qty\":").append(1 + rnd.nextInt(5))
          .append("},");
    }
    sb.setLength(sb.length() - 1);
    sb.append("]}");
    while (sb.length() < 1024) {
      sb.append(' ');
    }
    return sb.substring(0, 1024).getBytes(StandardCharsets.UTF_8);
  }

  /** Samples used heap every few milliseconds. */
  static final class PeakHeap implements Runnable {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicLong peak = new AtomicLong();
    private volatile boolean running = true;
    private Thread thread;

    static PeakHeap start() {
      System.gc();
      PeakHeap p = new PeakHeap();
      p.thread = new Thread(p, "peak-heap");
      p.thread.setDaemon(true);
      p.thread.start();
      return p;
    }

    @Override
    public void run() {
      while (running) {
        peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    long stop() throws InterruptedException {
      running = false;
      thread.join();
      return peak.get();
    }
  }
}
