package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.SparkSqlRunner;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiered topic and a reference topic without tiering get the same mixed workload (every producer
 * kind: plain, compressed, idempotent, transactional with commits and aborts; null keys and values,
 * headers with duplicates and null values). Once the tiered topic's local log starts past the
 * workload, reads come from the Iceberg tier, and the two topics must read back the same, field by
 * field, at both isolation levels; the Iceberg table must hold exactly the committed records of the
 * tiered part, read with Iceberg's generic reader and with Spark SQL (where a filter on
 * kafka.partition prunes files); offsetsForTimes must agree.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TieredTopicTest {
  private static final String TIERED = "orders.tiered";
  private static final String REFERENCE = "orders-reference";
  private static final int PARTITIONS = 3;
  private static final long WORKLOAD_BYTES_PER_PARTITION = 3L * 1024 * 1024 + 300 * 1024;

  @TempDir static Path dir;

  private FloeCluster cluster;
  private Admin admin;
  private final Map<Integer, Long> workloadEnd = new HashMap<>();
  private long firstTimestamp;

  /** One consumed record, compared field by field (byte arrays by content). */
  record Rec(
      int partition,
      long offset,
      long timestamp,
      TimestampType type,
      ByteBuffer key,
      ByteBuffer value,
      List<Hdr> headers) {}

  record Hdr(String key, ByteBuffer value) {}

  @BeforeAll
  void startAndProduce() throws Exception {
    cluster = FloeCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    admin
        .createTopics(
            List.of(
                new NewTopic(TIERED, PARTITIONS, (short) 1)
                    .configs(
                        Map.of(
                            "remote.storage.enable", "true",
                            "segment.bytes", "1048576",
                            "local.retention.ms", "1000",
                            "retention.ms", "-1")),
                new NewTopic(REFERENCE, PARTITIONS, (short) 1)
                    .configs(Map.of("retention.ms", "-1"))))
        .all()
        .get();
    produceWorkload();
  }

  @AfterAll
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.putAll(extra);
    return new KafkaProducer<>(props);
  }

  /**
   * Producers take turns; each sends every record to both topics and flushes before the next one
   * starts, and each transaction's markers are awaited, so both topics get the same records at the
   * same offsets.
   */
  private void produceWorkload() throws Exception {
    Random random = new Random(20261202L);
    firstTimestamp = System.currentTimeMillis() - Duration.ofMinutes(30).toMillis();
    long[] clock = {firstTimestamp};
    long[] bytes = new long[PARTITIONS];
    try (KafkaProducer<byte[], byte[]> plain =
            producer(
                Map.of(
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    false,
                    ProducerConfig.ACKS_CONFIG,
                    "1",
                    ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                    1));
        KafkaProducer<byte[], byte[]> zstd =
            producer(
                Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "zstd",
                    ProducerConfig.BATCH_SIZE_CONFIG,
                    65536));
        KafkaProducer<byte[], byte[]> lz4 =
            producer(
                Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "lz4",
                    ProducerConfig.ACKS_CONFIG,
                    "all"));
        KafkaProducer<byte[], byte[]> txn =
            producer(
                Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "gzip",
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "floe-e2e-txn"))) {
      txn.initTransactions();
      int round = 0;
      while (min(bytes) < WORKLOAD_BYTES_PER_PARTITION) {
        for (KafkaProducer<byte[], byte[]> p : List.of(plain, zstd, lz4)) {
          sendRecords(p, 40, random, clock, bytes);
          p.flush();
        }
        txn.beginTransaction();
        sendRecords(txn, 15, random, clock, bytes);
        txn.flush(); // else an abort may drop batches not sent yet, and nothing aborted reaches
        // the log
        if (round % 3 == 1) {
          txn.abortTransaction();
        } else {
          txn.commitTransaction();
        }
        awaitStable();
        round++;
      }
      Map<TopicPartition, Long> tieredEnd = endOffsets(TIERED, IsolationLevel.READ_UNCOMMITTED);
      assertThat(endOffsets(REFERENCE, IsolationLevel.READ_UNCOMMITTED).values())
          .containsExactlyElementsOf(tieredEnd.values());
      tieredEnd.forEach((tp, end) -> workloadEnd.put(tp.partition(), end));

      // Filler past the workload rolls the segment that holds its tail, so all of the workload can
      // be tiered.
      for (int p = 0; p < PARTITIONS; p++) {
        for (int i = 0; i < 14; i++) {
          byte[] value = new byte[100 * 1024];
          random.nextBytes(value);
          long ts = clock[0]++;
          byte[] key = ("filler-" + i).getBytes(StandardCharsets.UTF_8);
          plain.send(new ProducerRecord<>(TIERED, p, ts, key, value));
          plain.send(new ProducerRecord<>(REFERENCE, p, ts, key, value));
        }
      }
      plain.flush();
    }
  }

  private static long min(long[] values) {
    long m = Long.MAX_VALUE;
    for (long v : values) {
      m = Math.min(m, v);
    }
    return m;
  }

  private static void sendRecords(
      KafkaProducer<byte[], byte[]> producer,
      int perPartition,
      Random random,
      long[] clock,
      long[] bytes) {
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < PARTITIONS; p++) {
        long n = clock[0] - 1; // a running record number, also the timestamp offset
        byte[] key =
            n % 7 == 0
                ? null
                : n % 17 == 0
                    ? new byte[0]
                    : ("key-" + (n % 1000)).getBytes(StandardCharsets.UTF_8);
        byte[] value;
        if (n % 11 == 0) {
          value = null; // tombstone
        } else if (n % 13 == 0) {
          value = new byte[0];
        } else {
          value = new byte[50 + random.nextInt(1450)];
          // half random, half repetitive: compressible, so codecs do real work
          for (int j = 0; j < value.length; j++) {
            value[j] = j % 2 == 0 ? (byte) random.nextInt() : (byte) (j % 5);
          }
        }
        List<Header> headers = new ArrayList<>();
        if (n % 3 == 0) {
          headers.add(new RecordHeader("trace", ("t-" + n).getBytes(StandardCharsets.UTF_8)));
          headers.add(new RecordHeader("dup", "a".getBytes(StandardCharsets.UTF_8)));
          headers.add(new RecordHeader("nothing", null));
          headers.add(new RecordHeader("dup", "b".getBytes(StandardCharsets.UTF_8)));
        }
        if (n % 5 == 0) {
          headers.add(new RecordHeader("", new byte[0]));
        }
        long ts = clock[0]++;
        producer.send(new ProducerRecord<>(TIERED, p, ts, key, value, headers));
        producer.send(new ProducerRecord<>(REFERENCE, p, ts, key, value, headers));
        bytes[p] += (value == null ? 0 : value.length) + 40;
      }
    }
  }

  private void awaitStable() {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                endOffsets(TIERED, IsolationLevel.READ_COMMITTED)
                        .equals(endOffsets(TIERED, IsolationLevel.READ_UNCOMMITTED))
                    && endOffsets(REFERENCE, IsolationLevel.READ_COMMITTED)
                        .equals(endOffsets(REFERENCE, IsolationLevel.READ_UNCOMMITTED)));
  }

  private Map<TopicPartition, Long> endOffsets(String topic, IsolationLevel isolation)
      throws ExecutionException, InterruptedException {
    return listOffsets(topic, OffsetSpec.latest(), isolation);
  }

  private Map<TopicPartition, Long> listOffsets(
      String topic, OffsetSpec spec, IsolationLevel isolation)
      throws ExecutionException, InterruptedException {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      request.put(new TopicPartition(topic, p), spec);
    }
    Map<TopicPartition, Long> out =
        new java.util.TreeMap<>(Comparator.comparingInt(TopicPartition::partition));
    admin
        .listOffsets(request, new ListOffsetsOptions(isolation))
        .all()
        .get()
        .forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private void awaitWorkloadTiered() {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              Map<TopicPartition, Long> local =
                  listOffsets(TIERED, OffsetSpec.earliestLocal(), IsolationLevel.READ_UNCOMMITTED);
              return local.entrySet().stream()
                  .allMatch(e -> e.getValue() >= workloadEnd.get(e.getKey().partition()));
            });
  }

  private List<Rec> readAll(String topic, IsolationLevel isolation, Map<String, Object> extra)
      throws Exception {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.putAll(extra);
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      partitions.add(new TopicPartition(topic, p));
    }
    List<Rec> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime())
            .as("reading %s (%s) within 90 s", topic, isolation)
            .isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          out.add(rec(r));
        }
      }
    }
    out.sort(Comparator.comparingInt(Rec::partition).thenComparingLong(Rec::offset));
    return out;
  }

  private static ByteBuffer buf(byte[] b) {
    return b == null ? null : ByteBuffer.wrap(b);
  }

  private static Rec rec(ConsumerRecord<byte[], byte[]> r) {
    List<Hdr> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(new Hdr(h.key(), buf(h.value())));
    }
    return new Rec(
        r.partition(),
        r.offset(),
        r.timestamp(),
        r.timestampType(),
        buf(r.key()),
        buf(r.value()),
        headers);
  }

  private static void assertSameRecords(String what, List<Rec> actual, List<Rec> expected) {
    for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
      Rec a = actual.get(i);
      Rec e = expected.get(i);
      if (!a.equals(e)) {
        throw new AssertionError(
            what
                + ": record "
                + i
                + " differs:\n  expected "
                + describe(e)
                + "\n  actual   "
                + describe(a));
      }
    }
    assertThat(actual).as(what + ": record count").hasSameSizeAs(expected);
  }

  private static String describe(Rec r) {
    return "p"
        + r.partition()
        + "@"
        + r.offset()
        + " ts="
        + r.timestamp()
        + " "
        + r.type()
        + " key="
        + len(r.key())
        + " value="
        + len(r.value())
        + " headers="
        + r.headers().stream()
            .map(h -> h.key() + ":" + len(h.value()))
            .collect(Collectors.joining(","));
  }

  private static String len(ByteBuffer b) {
    return b == null ? "null" : b.remaining() + "B";
  }

  /**
   * The same records with the topic-independent fields only (the topic name is not part of Rec).
   */
  @Test
  void tieredTopicReadsBackLikeTheReference() throws Exception {
    awaitWorkloadTiered();
    Map<TopicPartition, Long> localStart =
        listOffsets(TIERED, OffsetSpec.earliestLocal(), IsolationLevel.READ_UNCOMMITTED);
    Map<TopicPartition, Long> tieredTo =
        listOffsets(TIERED, OffsetSpec.latestTiered(), IsolationLevel.READ_UNCOMMITTED);
    System.out.printf(
        "workload end %s, local log start %s, latest tiered %s%n",
        workloadEnd, localStart, tieredTo);

    long fetchesBefore = floeMetric("FetchCount");

    List<Rec> refUncommitted = readAll(REFERENCE, IsolationLevel.READ_UNCOMMITTED, Map.of());
    List<Rec> tieredUncommitted = readAll(TIERED, IsolationLevel.READ_UNCOMMITTED, Map.of());
    assertSameRecords("read_uncommitted", tieredUncommitted, refUncommitted);

    List<Rec> refCommitted = readAll(REFERENCE, IsolationLevel.READ_COMMITTED, Map.of());
    assertThat(refCommitted.size())
        .as("the workload has aborted records")
        .isLessThan(refUncommitted.size());
    List<Rec> tieredCommitted = readAll(TIERED, IsolationLevel.READ_COMMITTED, Map.of());
    assertSameRecords("read_committed", tieredCommitted, refCommitted);

    // Small fetches: the broker's aborted-transaction range depends on index positions plus the
    // fetch size.
    List<Rec> tieredCommittedSmall =
        readAll(
            TIERED,
            IsolationLevel.READ_COMMITTED,
            Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 48 * 1024));
    assertSameRecords("read_committed, 48 KiB fetches", tieredCommittedSmall, refCommitted);

    assertThat(floeMetric("FetchCount"))
        .as("reads were served by the Floe RSM")
        .isGreaterThan(fetchesBefore);
    assertThat(floeMetric("CopyCount")).isGreaterThanOrEqualTo(PARTITIONS * 3L);
    assertThat(floeMetric("CopyErrors")).isZero();

    assertTableHoldsCommittedRecords(tieredCommitted);
    assertOffsetsForTimesAgree(refUncommitted, localStart);
  }

  private void assertTableHoldsCommittedRecords(List<Rec> committed) throws Exception {
    String topicId =
        admin
            .describeTopics(List.of(TIERED))
            .allTopicNames()
            .get()
            .get(TIERED)
            .topicId()
            .toString();
    try (JdbcCatalog catalog = cluster.catalog()) {
      Table table =
          new TopicTables(
                  catalog, TopicTableOptions.builder().namespace(Namespace.of("kafka")).build())
              .find(TIERED, topicId);
      assertThat(table).as("table of " + TIERED).isNotNull();
      Snapshot snapshot = table.currentSnapshot();
      // The tiered part per partition, from the copy commits of this snapshot's history
      Map<Integer, Long> tieredEnd = new HashMap<>();
      for (Snapshot s = snapshot;
          s != null;
          s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
        for (SegmentSummary.Segment segment : SegmentSummary.segmentsOf(s.summary())) {
          tieredEnd.merge(segment.partition(), segment.endOffset(), Math::max);
        }
      }
      for (int p = 0; p < PARTITIONS; p++) {
        assertThat(tieredEnd.get(p))
            .as("tiered end of partition %d", p)
            .isGreaterThanOrEqualTo(workloadEnd.get(p) - 1);
      }
      List<Rec> rows = new ArrayList<>();
      try (CloseableIterable<Record> records =
          IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
        for (Record row : records) {
          rows.add(rec(row));
        }
      }
      rows.sort(Comparator.comparingInt(Rec::partition).thenComparingLong(Rec::offset));
      List<Rec> expected =
          committed.stream().filter(r -> r.offset() <= tieredEnd.get(r.partition())).toList();
      assertSameRecords("Iceberg rows", rows, expected);
      assertSparkReadsTheSnapshot(table, snapshot, expected);
    }
  }

  /**
   * Real Spark SQL over the same JdbcCatalog (catalog named like the plugin's catalog.name), pinned
   * to the snapshot the generic reader checked: the same committed records, and a filter on
   * kafka.partition plans only that partition's data files (Iceberg's scan report: the others are
   * skipped).
   */
  private void assertSparkReadsTheSnapshot(Table table, Snapshot snapshot, List<Rec> expected)
      throws Exception {
    int dataFiles = 0;
    int partition0Files = 0;
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        dataFiles++;
        if (task.file().partition().get(0, Integer.class) == 0) {
          partition0Files++;
        }
      }
    }
    String from = table.name() + " VERSION AS OF " + snapshot.snapshotId();
    Map<String, String> conf =
        SparkSqlRunner.icebergCatalog(TestCatalogs.CATALOG_NAME, cluster.catalogProperties);
    long started = System.nanoTime();
    List<SparkSqlRunner.Result> results =
        SparkSqlRunner.run(
            dir.resolve("spark"),
            conf,
            List.of(
                "SELECT kafka.partition AS partition, kafka.offset AS offset, unix_millis(kafka.timestamp) AS ts,"
                    + " kafka.timestamp_type AS timestamp_type, key, value, headers FROM "
                    + from,
                "SELECT kafka.offset AS offset FROM " + from + " WHERE kafka.partition = 0"),
            Duration.ofMinutes(5));
    System.out.printf(
        "Spark read %s in %d ms%n", table.name(), (System.nanoTime() - started) / 1_000_000);

    SparkSqlRunner.Result all = results.get(0).requireOk();
    List<Rec> rows = new ArrayList<>();
    all.rows().forEach(row -> rows.add(rec(row)));
    rows.sort(Comparator.comparingInt(Rec::partition).thenComparingLong(Rec::offset));
    assertSameRecords("Spark rows", rows, expected);
    JsonNode fullScan = all.scanOf(table.name());
    assertThat(fullScan.get("resultDataFiles").asLong())
        .as("data files of the full scan")
        .isEqualTo(dataFiles);
    assertThat(fullScan.get("resultDeleteFiles").asLong())
        .as("position deletes hide the aborted rows")
        .isPositive();

    SparkSqlRunner.Result filtered = results.get(1).requireOk();
    assertThat(filtered.rows().stream().map(r -> r.get("offset").asLong()).sorted().toList())
        .as("offsets Spark reads for kafka.partition = 0")
        .isEqualTo(expected.stream().filter(r -> r.partition() == 0).map(Rec::offset).toList());
    JsonNode prunedScan = filtered.scanOf(table.name());
    assertThat(partition0Files).isPositive().isLessThan(dataFiles);
    assertThat(prunedScan.get("resultDataFiles").asLong())
        .as("data files read for kafka.partition = 0")
        .isEqualTo(partition0Files);
    // Each segment commit writes its own manifest, so Iceberg prunes whole manifests by their
    // partition ranges
    // (skippedDataManifests) before it would skip single files (skippedDataFiles).
    assertThat(
            fullScan.get("resultDataFiles").asLong() - prunedScan.get("resultDataFiles").asLong())
        .as("data files pruned for kafka.partition = 0")
        .isEqualTo(dataFiles - partition0Files);
    assertThat(prunedScan.get("skippedDataManifests").asLong())
        .as("manifests pruned for kafka.partition = 0")
        .isPositive();
    assertThat(prunedScan.get("scannedDataManifests").asLong())
        .as("manifests read for kafka.partition = 0")
        .isLessThan(fullScan.get("scannedDataManifests").asLong());
    System.out.printf(
        "Spark scan of kafka.partition = 0: %s (full scan: %s)%n", prunedScan, fullScan);
  }

  /** A row of Spark's JSON: binary columns in base64, nulls kept. */
  private static Rec rec(JsonNode row) {
    List<Hdr> headers = new ArrayList<>();
    for (JsonNode h : row.get("headers")) {
      headers.add(new Hdr(h.get("key").asText(), base64(h.get("value"))));
    }
    TimestampType type =
        row.get("timestamp_type").asText().equals("LOG_APPEND_TIME")
            ? TimestampType.LOG_APPEND_TIME
            : TimestampType.CREATE_TIME;
    return new Rec(
        row.get("partition").asInt(),
        row.get("offset").asLong(),
        row.get("ts").asLong(),
        type,
        base64(row.get("key")),
        base64(row.get("value")),
        headers);
  }

  private static ByteBuffer base64(JsonNode value) {
    return value == null || value.isNull()
        ? null
        : ByteBuffer.wrap(Base64.getDecoder().decode(value.asText()));
  }

  @SuppressWarnings("unchecked")
  private static Rec rec(Record row) {
    Record kafka = (Record) row.getField("kafka");
    List<Hdr> headers = new ArrayList<>();
    for (Record h : (List<Record>) row.getField("headers")) {
      headers.add(new Hdr((String) h.getField("key"), (ByteBuffer) h.getField("value")));
    }
    long ts = ((java.time.OffsetDateTime) kafka.getField("timestamp")).toInstant().toEpochMilli();
    TimestampType type =
        Objects.equals(kafka.getField("timestamp_type"), "LOG_APPEND_TIME")
            ? TimestampType.LOG_APPEND_TIME
            : TimestampType.CREATE_TIME;
    return new Rec(
        (Integer) kafka.getField("partition"),
        (Long) kafka.getField("offset"),
        ts,
        type,
        (ByteBuffer) row.getField("key"),
        (ByteBuffer) row.getField("value"),
        headers);
  }

  /** Timestamps of records in the tiered range: both topics must find the same offsets. */
  private void assertOffsetsForTimesAgree(
      List<Rec> reference, Map<TopicPartition, Long> localStart) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    long dataTimestampsBefore = firstTimestamp + Duration.ofMinutes(20).toMillis();
    int checked = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      for (int p = 0; p < PARTITIONS; p++) {
        int partition = p;
        long tieredLimit = localStart.get(new TopicPartition(TIERED, p));
        List<Rec> candidates =
            reference.stream()
                .filter(r -> r.partition() == partition && r.offset() < tieredLimit)
                .toList();
        for (int i = 0; i < candidates.size(); i += Math.max(1, candidates.size() / 12)) {
          long target = candidates.get(i).timestamp() - (i % 2);
          OffsetAndTimestamp ref =
              consumer
                  .offsetsForTimes(Map.of(new TopicPartition(REFERENCE, p), target))
                  .get(new TopicPartition(REFERENCE, p));
          OffsetAndTimestamp tiered =
              consumer
                  .offsetsForTimes(Map.of(new TopicPartition(TIERED, p), target))
                  .get(new TopicPartition(TIERED, p));
          assertThat(tiered).as("offsetsForTimes(p%d, %d)", p, target).isNotNull();
          assertThat(tiered.offset())
              .as("offsetsForTimes(p%d, %d)", p, target)
              .isEqualTo(ref.offset());
          if (ref.timestamp() < dataTimestampsBefore) {
            // a transaction marker carries the time it was written, which differs between the two
            // topics
            assertThat(tiered.timestamp()).isEqualTo(ref.timestamp());
          }
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThanOrEqualTo(PARTITIONS * 10);
  }

  /**
   * Kafka's retention deletes remote segments, and with retention.mode=delete their rows leave the
   * table.
   */
  @Test
  void retentionRemovesRowsFromTheTable() throws Exception {
    String topic = "retention-events";
    admin
        .createTopics(
            List.of(
                new NewTopic(topic, 1, (short) 1)
                    .configs(
                        Map.of(
                            "remote.storage.enable", "true",
                            "segment.bytes", "1048576",
                            "local.retention.ms", "1000",
                            "retention.ms", "-1"))))
        .all()
        .get();
    TopicPartition tp = new TopicPartition(topic, 0);
    Random random = new Random(7);
    long ts = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
    try (KafkaProducer<byte[], byte[]> producer =
        producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd"))) {
      for (int i = 0; i < 40; i++) {
        byte[] value = new byte[80 * 1024];
        random.nextBytes(value);
        producer.send(
            new ProducerRecord<>(
                topic, 0, ts + i, ("k" + i).getBytes(StandardCharsets.UTF_8), value));
      }
      producer.flush();
    }
    String topicId =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId().toString();
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                single(topic, OffsetSpec.earliestLocal()) > 0
                    && single(topic, OffsetSpec.latestTiered()) >= 0);
    long tieredTo = single(topic, OffsetSpec.latestTiered());
    long deletesBefore = floeMetric("DeleteCount");
    try (JdbcCatalog catalog = cluster.catalog()) {
      TopicTables tables = new TopicTables(catalog, TopicTableOptions.builder().build());
      assertThat(rowCount(tables, topic, topicId)).isGreaterThan(0);

      admin
          .incrementalAlterConfigs(
              Map.of(
                  new org.apache.kafka.common.config.ConfigResource(
                      org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new org.apache.kafka.clients.admin.AlterConfigOp(
                          new org.apache.kafka.clients.admin.ConfigEntry("retention.ms", "1000"),
                          org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET))))
          .all()
          .get();

      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () ->
                  single(topic, OffsetSpec.earliest()) > tieredTo
                      && rowCount(tables, topic, topicId) == 0);
    }
    assertThat(floeMetric("DeleteCount")).isGreaterThan(deletesBefore);
    assertThat(floeMetric("DeleteErrors")).isZero();
  }

  private long single(String topic, OffsetSpec spec) throws Exception {
    return admin
        .listOffsets(Map.of(new TopicPartition(topic, 0), spec))
        .all()
        .get()
        .get(new TopicPartition(topic, 0))
        .offset();
  }

  private static long rowCount(TopicTables tables, String topic, String topicId) throws Exception {
    Table table = tables.find(topic, topicId);
    if (table == null) {
      return 0;
    }
    long n = 0;
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record ignored : rows) {
        n++;
      }
    }
    return n;
  }

  private static long floeMetric(String name) throws Exception {
    ObjectName pattern =
        new ObjectName("kafka.server:type=FloeRemoteStorageManager,name=" + name + ",*");
    long sum = 0;
    for (ObjectName n : ManagementFactory.getPlatformMBeanServer().queryNames(pattern, null)) {
      sum += (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(n, "Count");
    }
    return sum;
  }
}
