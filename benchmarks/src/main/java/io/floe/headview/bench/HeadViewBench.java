package io.floe.headview.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.floe.catalog.HadoopConf;
import io.floe.headview.HeadViewConfig;
import io.floe.headview.HeadViewServer;
import io.floe.headview.TestHeadViewConfig;
import io.floe.headview.TestKafka;
import io.floe.headview.Tierer;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.responses.LoadTableResponseParser;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;

/**
 * The head view's loadTable latency against real parts in one process: an in-process KRaft broker,
 * a JdbcCatalog on SQLite with a local warehouse, the real {@link HeadViewServer} over HTTP, each
 * response parsed the way Iceberg's REST client parses it ({@link LoadTableResponseParser}).
 * Phases:
 *
 * <ol>
 *   <li>cold: the first build of a head of N records (a service warmed up on another topic, empty
 *       cache);
 *   <li>unchanged: loads with nothing new;
 *   <li>warm: loads of the N-record head with 100 records produced (acknowledged) before each;
 *   <li>incremental: the same with 1,000 records before each;
 *   <li>live: a producer running meanwhile and the real table tiering chunks of the head every
 *       third load; every load's table is read back (Iceberg generic reader) and checked against
 *       what was acknowledged before its loadTable began: missed and duplicate offsets.
 * </ol>
 *
 * Baselines in the same run: a plain read_committed KafkaConsumer reading the same N records, and a
 * plain JdbcCatalog loadTable of the real table. The figures are merged into the report JSON under
 * {@code head_view}.
 *
 * <p>Arguments: report path, "quick" or "full".
 */
public final class HeadViewBench {
  private static final int PARTITIONS = 4;
  private static final int RECORD_BYTES = 1024;
  private static final String TOPIC = "bench_head";
  private static final String WARMUP_TOPIC = "bench_warmup";

  private record Plan(
      int headRecords,
      int tieredRecords,
      int colds,
      int unchanged,
      int warm,
      int incremental,
      int live,
      int tierChunk) {}

  private final Plan plan;
  private final Path dir;
  private final Map<String, Object> figures = new LinkedHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, Map<String, Samples>> serverPhases = new LinkedHashMap<>();
  private KafkaClusterTestKit kafka;
  private final TestCatalogs.Storage storage;
  private Map<String, String> catalogProps;
  private JdbcCatalog catalog;
  private Table real;
  private HeadViewServer server;
  private FileIO io;
  private final long[] tiered = new long[PARTITIONS];

  private HeadViewBench(Plan plan, Path dir, TestCatalogs.Storage storage) {
    this.plan = plan;
    this.dir = dir;
    this.storage = storage;
  }

  public static void main(String[] args) throws Exception {
    Path report = Path.of(args.length > 0 ? args[0] : "target/bench/report.json");
    boolean quick = args.length > 1 && args[1].equals("quick");
    Plan plan =
        quick
            ? new Plan(20_000, 2_000, 2, 10, 20, 20, 9, 1_000)
            : new Plan(100_000, 8_000, 3, 30, 60, 60, 21, 4_000);
    Path dir = Files.createTempDirectory("floe-head-bench");
    // -Dbench.storage=s3: the warehouse on S3Proxy (127.0.0.1, in this JVM) instead of the local
    // filesystem
    TestCatalogs.Storage storage =
        TestCatalogs.Storage.valueOf(
            System.getProperty("bench.storage", "local").toUpperCase(Locale.ROOT));
    HeadViewBench bench = new HeadViewBench(plan, dir, storage);
    String loadBefore = loadAverage();
    long started = System.nanoTime();
    try {
      bench.run();
    } finally {
      bench.close();
    }
    bench.figures.put("mode", quick ? "quick" : "full");
    bench.figures.put(
        "warehouse", storage == TestCatalogs.Storage.S3 ? "s3proxy" : "local filesystem");
    bench.figures.put("load_average_before", loadBefore);
    bench.figures.put("load_average_after", loadAverage());
    bench.figures.put("bench_seconds", Samples.round((System.nanoTime() - started) / 1e9));
    bench.writeReport(report);
    bench.printTable();
    System.exit(0); // the broker's non-daemon threads
  }

  private void run() throws Exception {
    kafka = TestKafka.start(Map.of());

    catalogProps = TestCatalogs.properties(dir, storage);
    catalog = new JdbcCatalog();
    catalog.setConf(HadoopConf.create()); // as the plugin's and the head view's
    catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
    TopicTables tables = new TopicTables(catalog, TopicTableOptions.builder().build());
    String topicId;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
      // Topic ids from the create response: a describe right after may not find the topic yet.
      CreateTopicsResult created =
          admin.createTopics(
              List.of(
                  new NewTopic(TOPIC, PARTITIONS, (short) 1),
                  new NewTopic(WARMUP_TOPIC, 1, (short) 1)));
      created.all().get();
      topicId = created.topicId(TOPIC).get().toString();
      tables.resolve(WARMUP_TOPIC, created.topicId(WARMUP_TOPIC).get().toString());
    }
    real = tables.resolve(TOPIC, topicId);
    io = real.io();

    try (AckingProducer producer =
            new AckingProducer(kafka.bootstrapServers(), TOPIC, PARTITIONS, RECORD_BYTES);
        AckingProducer warmupProducer =
            new AckingProducer(kafka.bootstrapServers(), WARMUP_TOPIC, 1, RECORD_BYTES);
        Tierer tierer = new Tierer(kafka.bootstrapServers(), TOPIC)) {
      // A committed part first, so the head starts at a boundary the snapshot gives, not at offset
      // 0.
      producer.produce(plan.tieredRecords());
      for (int p = 0; p < PARTITIONS; p++) {
        tiered[p] = producer.acked()[p] + 1;
        tierer.commit(real, p, 0, tiered[p]);
      }
      long produceStart = System.nanoTime();
      producer.produce(plan.headRecords());
      figures.put("produce_ms", ms(System.nanoTime() - produceStart));
      figures.put("head_records", plan.headRecords());
      figures.put("record_bytes", RECORD_BYTES);
      figures.put("partitions", PARTITIONS);

      baselines(producer.acked());

      // cold: each sample on a new service, warmed up on another topic first (JIT, consumer pool)
      Samples cold = new Samples();
      Map<String, Samples> coldPhases = new LinkedHashMap<>();
      Load last = null;
      for (int i = 0; i < plan.colds(); i++) {
        if (server != null) {
          server.close();
        }
        server = startServer();
        for (int w = 0; w < 5; w++) {
          warmupProducer.produce(200);
          load(WARMUP_TOPIC);
        }
        last = load(TOPIC);
        cold.add(last.ms());
        last.phases().forEach((k, v) -> coldPhases.computeIfAbsent(k, x -> new Samples()).add(v));
      }
      Check coldCheck = check(last.table(), producer.acked());
      figures.put("cold_load_ms_100k", Samples.round(cold.p50()));
      figures.put("cold_load_max_ms_100k", Samples.round(cold.max()));
      figures.put("cold_samples", cold.count());
      figures.put("cold_phases_ms", phaseFigures(coldPhases));
      figures.put("cold_response_bytes", last.bytes());

      Samples unchanged = measure(plan.unchanged(), () -> {}, "unchanged");
      figures.put("unchanged_p50_ms_100k", Samples.round(unchanged.p50()));
      figures.put("unchanged_p99_ms_100k", Samples.round(unchanged.p99()));

      Samples warm = measure(plan.warm(), () -> producer.produce(100), "warm");
      figures.put("load_table_p50_ms_100k", Samples.round(warm.p50()));
      figures.put("load_table_p99_ms_100k", Samples.round(warm.p99()));

      Samples incremental =
          measure(plan.incremental(), () -> producer.produce(1_000), "incremental");
      figures.put("incremental_p50_ms", Samples.round(incremental.p50()));
      figures.put("incremental_p99_ms", Samples.round(incremental.p99()));
      serverPhases.forEach(
          (what, phases) -> figures.put(what + "_phases_p50_ms", phaseFigures(phases)));
      figures.put("last_response_bytes", load(TOPIC).bytes());

      live(producer, tierer, coldCheck);
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private Samples measure(int n, Step before, String what) throws Exception {
    Samples out = new Samples();
    Map<String, Samples> phases = serverPhases.computeIfAbsent(what, x -> new LinkedHashMap<>());
    for (int i = 0; i < n; i++) {
      before.run();
      Load l = load(TOPIC);
      out.add(l.ms());
      l.phases().forEach((k, v) -> phases.computeIfAbsent(k, x -> new Samples()).add(v));
    }
    System.out.printf(Locale.ROOT, "%-12s %s%n", what, out);
    return out;
  }

  /**
   * Loads while a producer runs and the real table tiers a chunk of each partition before every
   * third load; every returned table is checked against the offsets acknowledged before its
   * loadTable began.
   */
  private void live(AckingProducer producer, Tierer tierer, Check coldCheck) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Thread background =
        new Thread(
            () -> {
              try {
                while (!stop.get()) {
                  producer.produce(50);
                  Thread.sleep(25); // pacing (~2,000 records/s), not waiting for a condition
                }
              } catch (Exception e) {
                failure.compareAndSet(null, e);
              }
            },
            "bench-producer");
    background.start();
    Samples liveLoads = new Samples();
    Samples afterTier = new Samples();
    long missed = coldCheck.missed();
    long duplicates = coldCheck.duplicates();
    int verified = 1;
    try {
      for (int i = 0; i < plan.live() && failure.get() == null; i++) {
        boolean tier = i % 3 == 2;
        if (tier) {
          long[] acked = producer.acked();
          for (int p = 0; p < PARTITIONS; p++) {
            long to = Math.min(acked[p] + 1, tiered[p] + plan.tierChunk());
            tierer.commit(real, p, tiered[p], to);
            tiered[p] = to;
          }
        }
        long[] before = producer.acked();
        Load l = load(TOPIC);
        (tier ? afterTier : liveLoads).add(l.ms());
        Map<String, Samples> phases =
            serverPhases.computeIfAbsent(tier ? "after_tier" : "live", x -> new LinkedHashMap<>());
        l.phases().forEach((k, v) -> phases.computeIfAbsent(k, x -> new Samples()).add(v));
        Check c = check(l.table(), before);
        missed += c.missed();
        duplicates += c.duplicates();
        verified++;
      }
    } finally {
      stop.set(true);
      background.join();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    System.out.printf(
        Locale.ROOT, "%-12s %s%n%-12s %s%n", "live", liveLoads, "after-tier", afterTier);
    figures.put("live_p50_ms", Samples.round(liveLoads.p50()));
    figures.put("live_p99_ms", Samples.round(liveLoads.p99()));
    figures.put("after_tier_p50_ms", Samples.round(afterTier.p50()));
    figures.put("after_tier_p99_ms", Samples.round(afterTier.p99()));
    figures.put("after_tier_max_ms", Samples.round(afterTier.max()));
    figures.put("after_tier_samples", afterTier.count());
    for (String what : List.of("live", "after_tier")) {
      figures.put(what + "_phases_p50_ms", phaseFigures(serverPhases.get(what)));
    }
    figures.put("missed_records", missed);
    figures.put("duplicate_records", duplicates);
    figures.put("verified_loads", verified);
  }

  /** A plain consumer reading the same head, and a plain catalog load of the real table. */
  private void baselines(long[] acked) throws Exception {
    Map<String, Object> props =
        Map.of(
            "bootstrap.servers",
            kafka.bootstrapServers(),
            "isolation.level",
            "read_committed",
            "auto.offset.reset",
            "none");
    Samples full = new Samples();
    for (int i = 0; i < 3; i++) {
      // From creating the consumer to the last record in hand: its close is not part of the read
      // (it waits for the fetch the consumer sent ahead, parked at the log end for
      // fetch.max.wait.ms)
      long t = System.nanoTime();
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consume(c, tiered, acked);
        full.addNanos(System.nanoTime() - t);
      }
    }
    figures.put("baseline_consume_ms_100k", Samples.round(full.p50()));

    Samples small = new Samples();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      long[] from = new long[PARTITIONS];
      for (int p = 0; p < PARTITIONS; p++) {
        from[p] = acked[p] + 1 - 1_000 / PARTITIONS;
      }
      for (int i = 0; i < 10; i++) {
        long t = System.nanoTime();
        consume(c, from, acked);
        small.addNanos(System.nanoTime() - t);
      }
    }
    figures.put("baseline_consume_p50_ms_1k", Samples.round(small.p50()));

    Samples catalogLoads = new Samples();
    TableIdentifier id = TableIdentifier.of("kafka", TOPIC);
    for (int i = 0; i < 20; i++) {
      long t = System.nanoTime();
      catalog.loadTable(id);
      catalogLoads.addNanos(System.nanoTime() - t);
    }
    figures.put("baseline_catalog_load_p50_ms", Samples.round(catalogLoads.p50()));
  }

  /**
   * Reads offsets [from[p], acked[p]] of every partition (assign + seek + poll, as the head view
   * does).
   */
  private static long consume(KafkaConsumer<byte[], byte[]> c, long[] from, long[] acked) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      tps.add(new TopicPartition(TOPIC, p));
    }
    c.assign(tps);
    for (int p = 0; p < PARTITIONS; p++) {
      c.seek(tps.get(p), from[p]);
    }
    long n = 0;
    while (true) {
      n += c.poll(Duration.ofMillis(200)).count();
      boolean done = true;
      for (int p = 0; p < PARTITIONS; p++) {
        done &= c.position(tps.get(p)) > acked[p];
      }
      if (done) {
        return n;
      }
    }
  }

  private HeadViewServer startServer() throws IOException {
    Map<String, String> props =
        TestHeadViewConfig.properties(catalogProps, kafka.bootstrapServers());
    props.put("head.cache-ttl-ms", "5000");
    // -Dhead.write.parquet.compression-codec=snappy, -Dkafka.max.poll.records=2000 etc.: try other
    // head-view settings
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith("head.") || k.startsWith("kafka."))
        .forEach(k -> props.put(k, System.getProperty(k)));
    return HeadViewServer.start(HeadViewConfig.of(props));
  }

  private record Load(double ms, Table table, Map<String, Double> phases, int bytes) {}

  /** One loadTable over HTTP, parsed as Iceberg's REST client parses it. */
  private Load load(String topic) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server.uri() + "/v1/namespaces/kafka/tables/" + topic))
            .GET()
            .build();
    long t = System.nanoTime();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "loadTable " + topic + ": HTTP " + response.statusCode() + " " + response.body());
    }
    TableMetadata metadata = LoadTableResponseParser.fromJson(response.body()).tableMetadata();
    double ms = (System.nanoTime() - t) / 1e6;
    Map<String, Double> phases = new LinkedHashMap<>();
    for (String part : response.headers().firstValue("Server-Timing").orElse("").split(",")) {
      String[] kv = part.trim().split(";dur=");
      if (kv.length == 2) {
        phases.put(kv[0], Double.parseDouble(kv[1]));
      }
    }
    Table table = new BaseTable(new StaticTableOperations(metadata, io), "kafka." + topic);
    return new Load(ms, table, phases, response.body().length());
  }

  private record Check(long missed, long duplicates) {}

  /**
   * Reads the table's (partition, offset) columns: offsets up to acked[p] that are missing, and
   * duplicates.
   */
  private static Check check(Table table, long[] acked) throws IOException {
    BitSet[] seen = new BitSet[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      seen[p] = new BitSet();
    }
    long duplicates = 0;
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).select("kafka.partition", "kafka.offset").build()) {
      for (Record row : rows) {
        Record k = (Record) row.getField("kafka");
        int p = (Integer) k.getField("partition");
        int offset = Math.toIntExact((Long) k.getField("offset"));
        if (seen[p].get(offset)) {
          duplicates++;
        }
        seen[p].set(offset);
      }
    }
    long missed = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      missed += (acked[p] + 1) - seen[p].get(0, Math.toIntExact(acked[p] + 1)).cardinality();
    }
    return new Check(missed, duplicates);
  }

  private static Map<String, Double> phaseFigures(Map<String, Samples> phases) {
    Map<String, Double> out = new LinkedHashMap<>();
    phases.forEach((k, v) -> out.put(k, Samples.round(v.p50())));
    return out;
  }

  private static double ms(long nanos) {
    return Samples.round(nanos / 1e6);
  }

  private static String loadAverage() {
    // /proc/loadavg: 1, 5 and 15 minute averages
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private void writeReport(Path report) throws IOException {
    figures.put(
        "cold_vs_consumer",
        Math.round(
                (Double) figures.get("cold_load_ms_100k")
                    / (Double) figures.get("baseline_consume_ms_100k")
                    * 1000)
            / 1000.0);
    figures.put(
        "meaning",
        "cold_load_ms_100k: first loadTable building a head of head_records records (median of cold_samples, each on"
            + " a new service warmed up on another topic); load_table_p50/p99_ms_100k: warm, the head already built,"
            + " 100 records produced before each load; unchanged_*: nothing new; incremental_*: 1,000 records produced"
            + " before each load; live_*/after_tier_*: a producer running meanwhile, after_tier = the first load after"
            + " the real table tiered a chunk (after_tier_p99_ms over after_tier_samples loads: their largest at"
            + " fewer than 100); cold_vs_consumer: cold_load_ms_100k / baseline_consume_ms_100k (a plain"
            + " read_committed consumer reading the same records); missed_records/duplicate_records: over verified_loads loads, offsets"
            + " acknowledged before the loadTable began that its table lacks / holds twice. Latency = HTTP GET +"
            + " Iceberg's LoadTableResponseParser on the client side; *_phases_ms: the server's Server-Timing split"
            + " (p50). The _100k keys keep their name in quick mode, where the head has head_records records.");
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root =
        Files.exists(report) && Files.size(report) > 0
            ? (ObjectNode) mapper.readTree(report.toFile())
            : mapper.createObjectNode();
    root.set("head_view", mapper.valueToTree(figures));
    Files.createDirectories(report.toAbsolutePath().getParent());
    mapper.writeValue(report.toFile(), root);
  }

  private void printTable() {
    System.out.printf(
        Locale.ROOT,
        "%nhead view, %s mode: head of %s records x %d B, %d partitions, load average %s -> %s%n",
        figures.get("mode"),
        figures.get("head_records"),
        RECORD_BYTES,
        PARTITIONS,
        figures.get("load_average_before"),
        figures.get("load_average_after"));
    String row = "| %-44s | %10s |%n";
    System.out.printf(row, "figure", "ms");
    System.out.printf(row, "-".repeat(44), "-".repeat(10));
    for (String k :
        List.of(
            "cold_load_ms_100k",
            "cold_load_max_ms_100k",
            "load_table_p50_ms_100k",
            "load_table_p99_ms_100k",
            "unchanged_p50_ms_100k",
            "unchanged_p99_ms_100k",
            "incremental_p50_ms",
            "incremental_p99_ms",
            "live_p50_ms",
            "live_p99_ms",
            "after_tier_p50_ms",
            "after_tier_p99_ms",
            "after_tier_max_ms",
            "baseline_consume_ms_100k",
            "baseline_consume_p50_ms_1k",
            "baseline_catalog_load_p50_ms")) {
      System.out.printf(row, k, figures.get(k));
    }
    System.out.printf(
        Locale.ROOT,
        "missed records %s, duplicate records %s (%s loads verified)%n",
        figures.get("missed_records"),
        figures.get("duplicate_records"),
        figures.get("verified_loads"));
    System.out.printf(
        Locale.ROOT,
        "cold / plain consume: %.2fx; server phases (ms, p50):%n",
        (Double) figures.get("cold_load_ms_100k")
            / (Double) figures.get("baseline_consume_ms_100k"));
    for (String what : List.of("cold", "unchanged", "warm", "incremental", "live", "after_tier")) {
      Object phases = figures.get(what.equals("cold") ? "cold_phases_ms" : what + "_phases_p50_ms");
      System.out.printf(Locale.ROOT, "  %-12s %s%n", what, phases);
    }
  }

  private void close() {
    for (AutoCloseable c : new AutoCloseable[] {server, catalog, kafka}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("close: " + e);
      }
    }
    // The warehouse (catalog, tiered and head files): a full run leaves a few hundred MiB
    // otherwise.
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      System.err.println("Could not delete " + dir + ": " + e);
    }
  }
}
