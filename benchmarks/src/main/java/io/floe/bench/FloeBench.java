package io.floe.bench;

import io.floe.catalog.CatalogDefaults;
import io.floe.commit.SegmentCommitter;
import io.floe.fetch.FetchResources;
import io.floe.fetch.ReadAheadPool;
import io.floe.fetch.ReencodedSegmentCache;
import io.floe.fetch.StoredSegment;
import io.floe.layout.TopicTableOptions;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.TableCodecs;
import io.floe.testing.CatchUp;
import io.floe.testing.TestCatalogs;
import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments;
import io.floe.tier.TopicTables;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Floe against a raw-copy baseline in the same process, on the same S3 server (S3Proxy on
 * 127.0.0.1, blobs on disk) and catalog (JdbcCatalog on SQLite). The baseline is what classic
 * tiered storage does: upload the segment file unchanged, serve fetches by ranged reads. Figures
 * are written as nested JSON to the report path.
 *
 * <p>Arguments: report path, git commit, "quick" or "full", or "typed" (only the typed workload,
 * {@link TypedBench}, full size: the report then holds only its "typed" object).
 */
public final class FloeBench {
  private static final int FETCH_BYTES = 1 << 20;
  static final long FETCH_CACHE_BYTES = 4L << 30;

  record Workload(String name, String codec, int recordBytes, long segmentBytes) {}

  public static void main(String[] args) throws Exception {
    Path report = Path.of(args[0]);
    String commit = args[1];
    boolean quick = args.length > 2 && args[2].equals("quick");
    Path dir = Files.createTempDirectory("floe-bench");
    System.setProperty("floe.test.s3.basedir", dir.resolve("s3").toString());
    long mib = 1024L * 1024;
    List<Workload> workloads =
        List.of(
            new Workload("json-1k-none", "none", 1024, (quick ? 64 : 1024) * mib),
            new Workload("json-1k-zstd", "zstd", 1024, (quick ? 32 : 256) * mib),
            new Workload("json-1k-lz4", "lz4", 1024, (quick ? 32 : 256) * mib),
            new Workload("json-100b-none", "none", 100, (quick ? 16 : 128) * mib));

    // the catalog as the plugin builds it (CatalogDefaults: manifest cache)
    Map<String, String> props =
        CatalogDefaults.apply(
            TestCatalogs.properties(
                Files.createDirectories(dir.resolve("catalog")), TestCatalogs.Storage.S3));
    props.put(CountingFileIO.DELEGATE, props.get("io-impl"));
    props.put("io-impl", CountingFileIO.class.getName());
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(TestCatalogs.CATALOG_NAME, props);
    FileIO rawIo =
        org.apache.iceberg.CatalogUtil.loadFileIO(props.get(CountingFileIO.DELEGATE), props, null);
    String rawPrefix = props.get("warehouse") + "/raw-baseline/";
    // fetches keep whole re-encoded segments on local disk, as a broker with fetch.cache.max.bytes
    ReencodedSegmentCache fetchCache =
        ReencodedSegmentCache.in(dir.resolve("fetch-cache"), FETCH_CACHE_BYTES);
    TieredSegments segments =
        new TieredSegments(
            new TopicTables(catalog, TopicTableOptions.builder().build()),
            new SegmentCommitter(),
            BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
            TableCodecs.withoutRegistry(),
            new FetchResources(fetchCache, ReadAheadPool.shared()));

    if (args.length > 2 && args[2].equals("typed")) {
      Map<String, Object> typed = TypedBench.run(catalog, dir, false);
      Files.createDirectories(report.getParent());
      Files.writeString(
          report,
          "{\"git_commit\": \"" + commit + "\", \"typed\": " + TypedBench.json(typed) + "}\n");
      catalog.close();
      System.exit(0);
    }
    warmUp(segments, dir);
    List<Map<String, Object>> results = new ArrayList<>();
    for (Workload w : workloads) {
      Path log = dir.resolve(w.name() + ".log");
      long bytes = generate(log, w.segmentBytes(), w.codec(), w.recordBytes());
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("workload", w.name());
      r.put("segment_mib", round(bytes / (double) mib));

      // Raw baseline copy: the segment file, unchanged.
      String rawPath = rawPrefix + w.name() + ".log";
      Measured raw =
          measure(
              () -> {
                try (OutputStream out = rawIo.newOutputFile(rawPath).createOrOverwrite()) {
                  Files.copy(log, out);
                }
                return null;
              });
      // Floe copy.
      SegmentKey key = new SegmentKey("bench-" + w.name(), "bench-id", 0, 0, "s-" + w.name());
      // The topic's table exists before the measured copy, as it does for every segment of a topic
      // but its first.
      segments.tables().forCopy(key.topic(), key.topicId());
      PeakHeap peak = PeakHeap.start();
      Measured floe = measure(() -> segments.copy(key, SegmentFiles.of(log, 0)));
      long peakHeap = peak.stop();
      TieredSegments.CopyResult copy = (TieredSegments.CopyResult) floe.value;
      r.put("copy.floe_mib_per_s", round(bytes / (double) mib / floe.seconds));
      r.put("copy.raw_mib_per_s", round(bytes / (double) mib / raw.seconds));
      r.put("copy.floe_cpu_s_per_gib", round(floe.cpuSeconds / (bytes / (double) (1024 * mib))));
      r.put("copy.raw_cpu_s_per_gib", round(raw.cpuSeconds / (bytes / (double) (1024 * mib))));
      r.put("storage.bytes_ratio", round(copy.storedBytes() / (double) bytes));
      r.put("memory.copy_peak_heap_mib", round(peakHeap / (double) mib));
      // Parquet floor (ParquetFloor): the same records into files of the table's layout, no more
      System.gc();
      Table table = segments.tables().find(key.topic(), key.topicId());
      Measured floorCopy = measure(() -> ParquetFloor.copy(table, 0, log, "floor-" + w.name()));
      ParquetFloor.Written floorFiles = (ParquetFloor.Written) floorCopy.value;

      // Catch-up reads, 1 MiB at a time: Floe as the broker fetches, the baseline by ranged reads.
      long rawServed = 0;
      Measured rawFetch =
          measure(
              () -> {
                long served = 0;
                byte[] buf = new byte[FETCH_BYTES];
                for (long pos = 0; pos < bytes; pos += FETCH_BYTES) {
                  try (SeekableInputStream in = rawIo.newInputFile(rawPath).newStream()) {
                    in.seek(pos);
                    served += in.readNBytes(buf, 0, (int) Math.min(FETCH_BYTES, bytes - pos));
                  }
                }
                return served;
              });
      rawServed = (Long) rawFetch.value;
      StoredSegment stored = segments.open(key);
      long readBefore = CountingFileIO.BYTES_READ.get();
      Measured floeFetch = measure(() -> catchUp(stored));
      long floeServed = (Long) floeFetch.value;
      long objectBytes = CountingFileIO.BYTES_READ.get() - readBefore;
      stored.close();
      // The same whole segment fetched again from the same table, then the floor's files read back.
      StoredSegment again = segments.open(key);
      Measured repeatFetch = measure(() -> catchUp(again));
      again.close();
      Measured floorRead = measure(() -> ParquetFloor.read(table, floorFiles));
      ParquetFloor.delete(table, floorFiles);
      r.put("fetch.floe_mib_per_s", round(floeServed / (double) mib / floeFetch.seconds));
      r.put("fetch.raw_mib_per_s", round(rawServed / (double) mib / rawFetch.seconds));
      r.put("fetch.read_amplification", round(objectBytes / (double) floeServed));
      r.put(
          "fetch.floe_cpu_s_per_gib",
          round(floeFetch.cpuSeconds / (floeServed / (double) (1024 * mib))));
      ParquetFloor.putFigures(
          r, bytes, raw, floe, floorCopy, floorRead, rawFetch, floeFetch, repeatFetch);
      System.out.println(ParquetFloor.line(w.name(), r));
      System.out.println(r);
      results.add(r);
      Files.delete(log);
      rawIo.deleteFile(rawPath);
    }

    Map<String, Object> commitFigures = commitThroughput(segments, dir, quick ? 3 : 10);
    System.out.println(commitFigures);

    // typed values against binary mode (TypedBench): report object "typed"
    Map<String, Object> typed = TypedBench.run(catalog, dir, quick);

    Map<String, Object> primary = results.get(0);
    StringBuilder json = new StringBuilder("{\n");
    json.append("  \"workload\": \"")
        .append(
            "1 KiB JSON-like records in 16-record producer batches (codec none; zstd, lz4 and 100-byte records under"
                + " workloads), one segment per workload, S3Proxy on 127.0.0.1 (filesystem), JdbcCatalog on SQLite,"
                + " 1 MiB fetches, re-encoded segment cache on local disk (fetch.cache.max.bytes 4 GiB: a"
                + " repeated catch-up reads it); "
                + (quick ? "quick" : "full")
                + " run\",\n");
    json.append("  \"git_commit\": \"").append(commit).append("\",\n");
    for (String group : List.of("copy", "fetch", "storage", "memory")) {
      json.append("  \"").append(group).append("\": {");
      List<String> fields = new ArrayList<>();
      primary.forEach(
          (k, v) -> {
            if (k.startsWith(group + ".")) {
              fields.add("\"" + k.substring(group.length() + 1) + "\": " + v);
            }
          });
      json.append(String.join(", ", fields)).append("},\n");
    }
    json.append("  \"commit\": {\"commits_per_s_16\": ")
        .append(commitFigures.get("commits_per_s_16"))
        .append(", \"snapshots_per_s_16\": ")
        .append(commitFigures.get("snapshots_per_s_16"))
        .append(", \"failed_copies\": ")
        .append(commitFigures.get("failed_copies"))
        .append("},\n");
    json.append("  \"typed\": ").append(TypedBench.json(typed)).append(",\n");
    json.append("  \"workloads\": [\n");
    List<String> rows = new ArrayList<>();
    for (Map<String, Object> r : results) {
      List<String> fields = new ArrayList<>();
      r.forEach(
          (k, v) -> fields.add("\"" + k + "\": " + (v instanceof String ? "\"" + v + "\"" : v)));
      rows.add("    {" + String.join(", ", fields) + "}");
    }
    json.append(String.join(",\n", rows)).append("\n  ],\n");
    // the same workloads keyed by name (workloads_by_name.<name>.<key>)
    json.append("  \"workloads_by_name\": {\n");
    List<String> named = new ArrayList<>();
    for (Map<String, Object> r : results) {
      List<String> fields = new ArrayList<>();
      r.forEach(
          (k, v) -> {
            if (!k.equals("workload")) {
              fields.add("\"" + k + "\": " + v);
            }
          });
      named.add("    \"" + r.get("workload") + "\": {" + String.join(", ", fields) + "}");
    }
    json.append(String.join(",\n", named)).append("\n  }\n}\n");
    Files.createDirectories(report.getParent());
    Files.writeString(report, json.toString());
    System.out.println(json);
    catalog.close();
    System.exit(0);
  }

  /**
   * Copies and fetches a small segment per codec, unmeasured, so that the figures describe a
   * running broker rather than the JIT compiling the copy and fetch paths (which dominates short
   * runs otherwise).
   */
  static void warmUp(TieredSegments segments, Path dir) throws Exception {
    List<String> codecs = List.of("none", "zstd");
    for (int partition = 0; partition < codecs.size(); partition++) {
      String codec = codecs.get(partition);
      Path log = dir.resolve("warm-up-" + codec + ".log");
      generate(log, 8L << 20, codec, 1024);
      // a partition each: the same offsets again in one partition would make the second commit
      // plan again after the first segment's deletion (a retry logged at WARN)
      SegmentKey key = new SegmentKey("bench-warm-up", "warm-up-id", partition, 0, "w-" + codec);
      segments.copy(key, SegmentFiles.of(log, 0));
      try (StoredSegment stored = segments.open(key)) {
        catchUp(stored);
      }
      Table table = segments.tables().find(key.topic(), key.topicId());
      ParquetFloor.Written floor = ParquetFloor.copy(table, partition, log, "w-floor-" + codec);
      ParquetFloor.read(table, floor);
      ParquetFloor.delete(table, floor);
      segments.delete(key, true, DeleteReason.EXPIRED);
      Files.delete(log);
    }
  }

  /**
   * Fetches a whole segment as RemoteLogManager does, 1 MiB at a time ({@link CatchUp}); returns
   * the bytes of the batches served.
   */
  static long catchUp(StoredSegment stored) throws Exception {
    return CatchUp.read(stored, FETCH_BYTES, OutputStream.nullOutputStream());
  }

  /** 16 copiers committing small segments into one table at once. */
  static Map<String, Object> commitThroughput(TieredSegments segments, Path dir, int perCopier)
      throws Exception {
    int copiers = 16;
    List<Path> logs = new ArrayList<>();
    for (int i = 0; i < perCopier; i++) {
      Path log = dir.resolve("small-" + i + ".log");
      generateAt(log, 64 * 1024, "none", 1024, i * 100_000L);
      logs.add(log);
    }
    segments.tables().resolve("bench-commits", "commits-id");
    ExecutorService pool = Executors.newFixedThreadPool(copiers);
    AtomicInteger failed = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    Set<Long> snapshots = ConcurrentHashMap.newKeySet();
    long t0 = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int c = 0; c < copiers; c++) {
      int partition = c;
      futures.add(
          pool.submit(
              () -> {
                for (int i = 0; i < perCopier; i++) {
                  try {
                    TieredSegments.CopyResult r =
                        segments.copy(
                            new SegmentKey(
                                "bench-commits",
                                "commits-id",
                                partition,
                                i * 100_000L,
                                "c" + partition + "-" + i),
                            SegmentFiles.of(logs.get(i), i * 100_000L));
                    attempts.addAndGet(r.commitAttempts());
                    snapshots.add(r.snapshotId());
                  } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    System.err.println("copy failed: " + e);
                  }
                }
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    Map<String, Object> out = new LinkedHashMap<>();
    int commits = copiers * perCopier - failed.get();
    out.put("commits_per_s_16", round(commits / seconds));
    // Copies committed at the same moment share a snapshot.
    out.put("snapshots_per_s_16", round(snapshots.size() / seconds));
    out.put("failed_copies", failed.get());
    out.put("commit_attempts_per_commit", round(attempts.get() / (double) Math.max(1, commits)));
    return out;
  }

  record Measured(double seconds, double cpuSeconds, Object value) {}

  interface Body {
    Object run() throws Exception;
  }

  /** Wall time and process CPU time (all threads, S3Proxy's included for both sides) of one run. */
  static Measured measure(Body body) throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    Object value = body.run();
    return new Measured(
        (System.nanoTime() - t0) / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9, value);
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  static long generate(Path file, long target, String codec, int recordBytes) throws Exception {
    return generateAt(file, target, codec, recordBytes, 0);
  }

  /**
   * Writes JSON-like records in producer-sized (16-record) batches until the file reaches {@code
   * target} bytes.
   */
  static long generateAt(Path file, long target, String codec, int recordBytes, long baseOffset)
      throws Exception {
    Random rnd = new Random(1);
    Compression compression =
        switch (codec) {
          case "zstd" -> Compression.zstd().build();
          case "lz4" -> Compression.lz4().build();
          default -> Compression.NONE;
        };
    long offset = baseOffset;
    long timestamp = 1_700_000_000_000L;
    Files.deleteIfExists(file);
    try (FileRecords records = FileRecords.open(file.toFile())) {
      while (records.sizeInBytes() < target) {
        MemoryRecordsBuilder b =
            MemoryRecords.builder(
                ByteBuffer.allocate(16 * (recordBytes + 64) + 128),
                RecordBatch.CURRENT_MAGIC_VALUE,
                compression,
                TimestampType.CREATE_TIME,
                offset);
        for (int i = 0; i < 16; i++) {
          b.appendWithOffset(
              offset + i,
              timestamp++,
              ("user-" + rnd.nextInt(10_000)).getBytes(StandardCharsets.UTF_8),
              jsonRecord(rnd, offset + i, recordBytes));
        }
        offset += 16;
        records.append(b.build());
      }
      records.flush();
      return records.sizeInBytes();
    }
  }

  static byte[] jsonRecord(Random rnd, long id, int size) {
    StringBuilder sb = new StringBuilder(size + 100);
    sb.append("{\"id\":")
        .append(id)
        .append(",\"type\":\"")
        .append(rnd.nextBoolean() ? "order" : "refund")
        .append("\",\"amount\":")
        .append(rnd.nextInt(100_000) / 100.0)
        .append(",\"items\":[");
    while (sb.length() < size) {
      sb.append("{\"sku\":\"SKU-")
          .append(rnd.nextInt(5000))
          .append("\",\"qty\":")
          .append(1 + rnd.nextInt(5))
          .append("},");
    }
    return sb.substring(0, size).getBytes(StandardCharsets.UTF_8);
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
