package io.floe.demo;

import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java steps of {@code make demo} (scripts/demo.sh starts and stops the processes):
 *
 * <pre>
 *   Demo setup WORKDIR SHIPPED_SERVER_PROPERTIES PLUGIN_DIR   write configs, print shell variables (ports)
 *   Demo run WORKDIR BROKER_PID                               topic, produce, watch tiering, consume
 *   Demo scan WORKDIR                                         read the table with Iceberg's generic reader
 *   Demo fresh WORKDIR                                        produce more, query them at once through the head view
 * </pre>
 */
public final class Demo {
  static final String TOPIC = "orders";
  static final int RECORDS = 20_000;

  /** Orders produced after tiering, per round, to be seen at once through the head view. */
  static final int FRESH = 500;

  static final int FRESH_ROUNDS = 3;
  static final int SEGMENT_BYTES = 1024 * 1024;

  private Demo() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      throw new IllegalArgumentException("usage: Demo setup|run|scan ...");
    }
    switch (args[0]) {
      case "setup" -> setup(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]));
      case "run" -> run(Path.of(args[1]), Long.parseLong(args[2]));
      case "scan" -> scan(Path.of(args[1]));
      case "fresh" -> fresh(Path.of(args[1]));
      default -> throw new IllegalArgumentException("unknown step " + args[0]);
    }
  }

  /**
   * Configs for S3Proxy and the broker on free ports; prints them as shell variables for demo.sh to
   * eval.
   */
  static void setup(Path work, Path shipped, Path pluginDir) throws IOException {
    Files.createDirectories(work);
    int s3 = ChildJvm.freePort();
    int broker = ChildJvm.freePort();
    int controller = ChildJvm.freePort();
    LocalStack.writeS3ProxyConfig(work, s3);
    int registry = ChildJvm.freePort();
    int registryManagement = ChildJvm.freePort();
    Map<String, String> extra = new HashMap<>(LocalStack.fastTiering());
    // Typed values: the orders topic's values are Avro in the registry's wire format.
    extra.put("rsm.config.registry.url", registryUrl(registry));
    extra.put("rsm.config.types.rules", "orders");
    extra.put("rsm.config.types.rule.orders.topics", TOPIC);
    extra.put("rsm.config.types.rule.orders.value.format", "avro");
    LocalStack.writeBrokerConfig(shipped, work, broker, controller, s3, pluginDir, extra);
    List<String> brokerJvm = LocalStack.brokerJvmArgs(work);
    int headView = ChildJvm.freePort();
    writeHeadViewConfig(work, headView);
    System.out.println("S3_PORT=" + s3);
    System.out.println("REGISTRY_PORT=" + registry);
    System.out.println("REGISTRY_MANAGEMENT_PORT=" + registryManagement);
    System.out.println("HEAD_VIEW_PORT=" + headView);
    System.out.println("BROKER_PORT=" + broker);
    System.out.println("CONTROLLER_PORT=" + controller);
    System.out.println("S3PROXY_JVM='" + String.join(" ", LocalStack.s3ProxyJvmArgs(work)) + "'");
    System.out.println("BROKER_JVM='" + String.join(" ", brokerJvm) + "'");
  }

  static String registryUrl(int port) {
    return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
  }

  static void run(Path work, long brokerPid) throws Exception {
    Properties server = load(work.resolve("server.properties"));
    String bootstrap = bootstrap(server);
    String registry = server.getProperty("rsm.config.registry.url");
    DemoRegistry.awaitReady(registry);
    int v1 = DemoRegistry.register(registry, DemoOrders.SUBJECT, DemoOrders.V1.toString());
    step(
        "Registered the orders' Avro schema (version 1) in the schema registry under "
            + DemoOrders.SUBJECT
            + ": id "
            + v1);
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000))) {
      awaitBroker(admin, brokerPid);
      step(
          "Creating topic '"
              + TOPIC
              + "' with remote.storage.enable=true, segment.bytes=1 MiB, local.retention.ms=1000");
      try {
        admin
            .createTopics(
                List.of(
                    new NewTopic(TOPIC, 1, (short) 1)
                        .configs(
                            Map.of(
                                "remote.storage.enable", "true",
                                "segment.bytes", String.valueOf(SEGMENT_BYTES),
                                "local.retention.ms", "1000",
                                "retention.ms", "-1"))))
            .all()
            .get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }

      step("Producing " + RECORDS + " Avro orders in the schema registry's wire format (zstd)");
      long t0 = System.nanoTime();
      long bytes = produce(bootstrap, v1);
      System.out.printf(
          Locale.ROOT,
          "  %d records, %.1f MiB of values in %.1f s%n",
          RECORDS,
          bytes / 1048576.0,
          (System.nanoTime() - t0) / 1e9);

      step("Waiting for the broker to tier rolled segments into Iceberg and delete them locally");
      long t1 = System.nanoTime();
      long lastPrint = -1;
      while (true) {
        checkAlive(brokerPid);
        long earliestLocal = offset(admin, tp, OffsetSpec.earliestLocal());
        long latestTiered = offset(admin, tp, OffsetSpec.latestTiered());
        long localBytes = localBytes(admin, tp);
        long secs = (System.nanoTime() - t1) / 1_000_000_000L;
        if (secs != lastPrint) {
          System.out.printf(
              Locale.ROOT,
              "  t=%2ds  latest-tiered offset %6d   earliest-local offset %6d   local log %5.2f MiB%n",
              secs,
              latestTiered,
              earliestLocal,
              localBytes / 1048576.0);
          lastPrint = secs;
        }
        // Done when every produced record is in the remote tier and gone from local disk. The last
        // segment gets
        // there too: once its records are older than local.retention.ms, Kafka rolls it, tiers it,
        // deletes it.
        if (latestTiered >= RECORDS - 1 && earliestLocal >= RECORDS) {
          break;
        }
        if (secs > 180) {
          throw new IllegalStateException("tiering did not finish in 180 s");
        }
        Thread.sleep(1000);
      }
      long tieringSeconds = (System.nanoTime() - t1) / 1_000_000_000L;
      long earliestLocal = offset(admin, tp, OffsetSpec.earliestLocal());
      long end = offset(admin, tp, OffsetSpec.latest());

      step(
          "Consuming '"
              + TOPIC
              + "' from the beginning (offsets below "
              + earliestLocal
              + " now exist only in the Iceberg tier)");
      long[] counts = consume(bootstrap, tp, end, earliestLocal, v1);
      System.out.printf(
          Locale.ROOT,
          "  consumed %d records (%d from the Iceberg tier, %d from the local log); expected %d%n",
          counts[0],
          counts[1],
          counts[0] - counts[1],
          RECORDS);
      if (counts[0] != RECORDS || counts[2] != 0) {
        throw new IllegalStateException(
            "consumed " + counts[0] + " records, " + counts[2] + " not as produced");
      }
      String tableName;
      try (JdbcCatalog catalog = catalog(work)) {
        Table table = findTable(catalog, server);
        tableName = TableIdentifier.parse(table.name()).name();
        System.out.println(
            "  Iceberg table "
                + table.name()
                + ": "
                + table.currentSnapshot().summary().get("total-records")
                + " records in "
                + table.currentSnapshot().summary().get("total-data-files")
                + " Parquet files, at "
                + table.location());
      }
      Files.writeString(
          work.resolve("demo-result.properties"),
          "table="
              + tableName
              + "\nrecords="
              + RECORDS
              + "\ntiered="
              + counts[1]
              + "\nlocal="
              + (counts[0] - counts[1])
              + "\n"
              + "tiering.seconds="
              + tieringSeconds
              + "\nschema.v1="
              + v1
              + "\n");
    }
  }

  /**
   * The head view's config: the plugin's catalog (rsm.config.iceberg.* as iceberg.*), the broker as
   * Kafka, a port on 127.0.0.1. Readers bring their own S3 settings, so no secret is handed out
   * through /v1/config.
   */
  static void writeHeadViewConfig(Path work, int port) throws IOException {
    Path server = work.resolve("server.properties");
    Properties broker = load(server);
    StringBuilder out =
        new StringBuilder("# written by make demo: the head view in front of the demo's catalog\n");
    out.append("listen.host=127.0.0.1\nlisten.port=").append(port).append('\n');
    out.append("catalog.name=")
        .append(LocalStack.rsmConfig(server, "catalog.name", "floe"))
        .append('\n');
    new java.util.TreeMap<>(LocalStack.catalogProperties(server))
        .forEach((k, v) -> out.append("iceberg.").append(k).append('=').append(v).append('\n'));
    out.append("kafka.bootstrap.servers=").append(bootstrap(broker)).append('\n');
    out.append("registry.url=").append(broker.getProperty("rsm.config.registry.url")).append('\n');
    Files.writeString(work.resolve("head-view.properties"), out.toString());
  }

  /**
   * Read-your-writes through the head view: in each of {@link #FRESH_ROUNDS} rounds, produces
   * {@link #FRESH} more orders (not tiered yet: they sit in the active segment), then, as soon as
   * the producer has their acks, loads the table through the head view with Iceberg's REST catalog
   * client and reads it with Iceberg's generic reader. Every acknowledged record must be there,
   * exactly once.
   */
  static void fresh(Path work) throws Exception {
    Properties server = load(work.resolve("server.properties"));
    String bootstrap = bootstrap(server);
    String registry = server.getProperty("rsm.config.registry.url");
    int v2 = DemoRegistry.register(registry, DemoOrders.SUBJECT, DemoOrders.V2.toString());
    step(
        "Evolved the orders' schema: version 2 (id "
            + v2
            + ") adds an optional 'coupon'; the orders below are written with it");
    Properties headView = load(work.resolve("head-view.properties"));
    String uri = "http://127.0.0.1:" + headView.getProperty("listen.port");
    Map<String, String> clientProps =
        new HashMap<>(LocalStack.catalogProperties(work.resolve("server.properties")));
    clientProps
        .keySet()
        .removeIf(k -> k.equals("type") || k.equals("uri") || k.startsWith("jdbc."));
    clientProps.put("uri", uri);
    try (org.apache.iceberg.rest.RESTCatalog catalog = new org.apache.iceberg.rest.RESTCatalog()) {
      awaitHeadView(catalog, clientProps);
      Namespace ns =
          Namespace.of(server.getProperty("rsm.config.table.namespace", "kafka").split("\\."));
      long coldStart = System.nanoTime();
      catalog.loadTable(TableIdentifier.of(ns, TOPIC));
      System.out.printf(
          Locale.ROOT,
          "  first query through the head view (connections to Kafka and S3 opened): %d ms%n",
          (System.nanoTime() - coldStart) / 1_000_000);
      step(
          "Producing more orders, "
              + FRESH_ROUNDS
              + " rounds of "
              + FRESH
              + ", each queried through the head view ("
              + uri
              + ") as soon as the producer has its acks");
      long lastMs = 0;
      for (int round = 1; round <= FRESH_ROUNDS; round++) {
        int end = RECORDS + round * FRESH;
        long acked = produceFresh(bootstrap, end - FRESH, end, v2);
        long ackedAt = System.nanoTime();
        Table table = catalog.loadTable(TableIdentifier.of(ns, TOPIC));
        lastMs = (System.nanoTime() - ackedAt) / 1_000_000;
        long rows = 0;
        long coupons = 0;
        java.util.BitSet seen = new java.util.BitSet(end);
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record r : records) {
            rows++;
            long offset = (Long) ((Record) r.getField("kafka")).getField("offset");
            Record value = (Record) r.getField("value");
            Object coupon = value == null ? null : value.getField("coupon");
            String expectedCoupon = offset < RECORDS ? null : DemoOrders.coupon((int) offset);
            if (offset < end
                && "ok".equals(r.getField("value_status"))
                && DemoOrders.customer((int) offset).equals(value.getField("customer"))
                && java.util.Objects.equals(expectedCoupon, coupon)) {
              seen.set((int) offset);
            }
            coupons += coupon == null ? 0 : 1;
          }
        }
        long tiered = tieredRecords(table);
        boolean exact = rows == end && seen.cardinality() == end;
        System.out.printf(
            Locale.ROOT,
            "  round %d: %d acknowledged, loadTable returned %d ms later; %d rows = %d from tiered Parquet files +"
                + " %d from the live Kafka head; offsets 0..%d each exactly once, typed: %s;"
                + " value.coupon set in %d rows (version 2 orders), null in the older ones%n",
            round,
            acked,
            lastMs,
            rows,
            tiered,
            rows - tiered,
            end - 1,
            exact,
            coupons);
        if (!exact) {
          throw new IllegalStateException(
              "the head view did not return every acknowledged record exactly once");
        }
      }
      Files.writeString(
          work.resolve("demo-result.properties"),
          "fresh=" + FRESH_ROUNDS * FRESH + "\nfresh.visible.after.ms=" + lastMs + "\n",
          java.nio.file.StandardOpenOption.APPEND);
    }
  }

  /** Records of the committed snapshot the view's head snapshots sit on (the tiered part). */
  private static long tieredRecords(Table view) {
    org.apache.iceberg.Snapshot s = view.currentSnapshot();
    while (s != null && "true".equals(s.summary().get("floe.head"))) {
      s = s.parentId() == null ? null : view.snapshot(s.parentId());
    }
    return s == null ? 0 : Long.parseLong(s.summary().getOrDefault("total-records", "0"));
  }

  private static void awaitHeadView(
      org.apache.iceberg.rest.RESTCatalog catalog, Map<String, String> props)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        catalog.initialize("headview", props);
        return;
      } catch (RuntimeException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the head view did not answer within 60 s: see head-view.log", notYet);
        }
        Thread.sleep(250);
      }
    }
  }

  private static long produceFresh(String bootstrap, int from, int to, int schemaId)
      throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> acks =
          new java.util.ArrayList<>();
      for (int i = from; i < to; i++) {
        acks.add(
            producer.send(
                new ProducerRecord<>(
                    TOPIC, 0, "order-" + i, DemoOrders.wire(DemoOrders.V2, schemaId, i))));
      }
      for (var ack : acks) {
        ack.get(30, TimeUnit.SECONDS);
      }
      return acks.size();
    }
  }

  /**
   * Prints the topic table through Iceberg's generic reader (the fallback when Spark is not used).
   */
  static void scan(Path work) throws Exception {
    try (JdbcCatalog catalog = catalog(work)) {
      Table table = findTable(catalog, load(work.resolve("server.properties")));
      step("Iceberg table " + table.name() + " read with Iceberg's generic reader (not SQL)");
      System.out.println("  location " + table.location());
      System.out.println("  schema   " + table.schema().asStruct());
      System.out.println("  spec     " + table.spec());
      System.out.println(
          "  snapshots "
              + java.util.stream.StreamSupport.stream(table.snapshots().spliterator(), false)
                  .count()
              + ", current: "
              + table.currentSnapshot().summary().get("total-records")
              + " records in "
              + table.currentSnapshot().summary().get("total-data-files")
              + " data files");
      Map<String, long[]> byCustomer = new java.util.TreeMap<>();
      long rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record r : records) {
          Record kafka = (Record) r.getField("kafka");
          Record value = (Record) r.getField("value");
          if (rows < 5) {
            System.out.println(
                "  offset "
                    + kafka.getField("offset")
                    + "  key "
                    + utf8((ByteBuffer) r.getField("key"))
                    + "  value "
                    + value
                    + "  value_status "
                    + r.getField("value_status"));
          }
          String customer = value == null ? "(not typed)" : value.getField("customer").toString();
          byCustomer.computeIfAbsent(customer, c -> new long[1])[0]++;
          rows++;
        }
      }
      System.out.println(
          "  rows "
              + rows
              + "; orders per customer "
              + byCustomer.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue()[0])
                  .toList());
    }
  }

  static JdbcCatalog catalog(Path work) throws IOException {
    Path server = work.resolve("server.properties");
    Map<String, String> props = new HashMap<>(LocalStack.catalogProperties(server));
    props.remove("type");
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(LocalStack.rsmConfig(server, "catalog.name", "floe"), props);
    return catalog;
  }

  static Table findTable(JdbcCatalog catalog, Properties server) {
    Namespace ns =
        Namespace.of(server.getProperty("rsm.config.table.namespace", "kafka").split("\\."));
    for (TableIdentifier id : catalog.listTables(ns)) {
      Table t = catalog.loadTable(id);
      if (TOPIC.equals(t.properties().get("kafka.topic"))) {
        return t;
      }
    }
    throw new IllegalStateException("no table for topic " + TOPIC + " in namespace " + ns);
  }

  private static long produce(String bootstrap, int schemaId) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    AtomicLong bytes = new AtomicLong();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        byte[] value = DemoOrders.wire(DemoOrders.V1, schemaId, i);
        bytes.addAndGet(value.length);
        producer.send(new ProducerRecord<>(TOPIC, 0, "order-" + i, value));
      }
      producer.flush();
    }
    return bytes.get();
  }

  /** {records read, of them below earliestLocal, not matching what was produced}. */
  private static long[] consume(
      String bootstrap, TopicPartition tp, long end, long earliestLocal, int schemaId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    long[] counts = new long[3];
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          counts[0]++;
          if (r.offset() < earliestLocal) {
            counts[1]++;
          }
          int i = (int) r.offset();
          if (!("order-" + i).equals(r.key())
              || !java.util.Arrays.equals(DemoOrders.wire(DemoOrders.V1, schemaId, i), r.value())) {
            counts[2]++;
          }
        }
      }
    }
    return counts;
  }

  private static void awaitBroker(Admin admin, long brokerPid) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      checkAlive(brokerPid);
      try {
        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (Exception notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("broker not ready after 90 s", notYet);
        }
      }
      Thread.sleep(250);
    }
  }

  private static void checkAlive(long pid) {
    if (pid > 0 && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true)) {
      throw new IllegalStateException("the broker (pid " + pid + ") has exited: see its log");
    }
  }

  private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
    return admin
        .listOffsets(Map.of(tp, spec))
        .partitionResult(tp)
        .get(10, TimeUnit.SECONDS)
        .offset();
  }

  private static long localBytes(Admin admin, TopicPartition tp) throws Exception {
    long total = 0;
    for (var dir :
        admin
            .describeLogDirs(List.of(1))
            .allDescriptions()
            .get(10, TimeUnit.SECONDS)
            .get(1)
            .values()) {
      ReplicaInfo info = dir.replicaInfos().get(tp);
      if (info != null) {
        total += info.size();
      }
    }
    return total;
  }

  /** The broker's address for clients, from its advertised listener. */
  private static String bootstrap(Properties server) {
    return server.getProperty("advertised.listeners").replaceFirst("^[A-Z_]+://", "");
  }

  private static Properties load(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return p;
  }

  private static String utf8(ByteBuffer b) {
    if (b == null) {
      return "null";
    }
    ByteBuffer d = b.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  private static void step(String s) {
    System.out.println();
    System.out.println("==> " + s);
  }
}
