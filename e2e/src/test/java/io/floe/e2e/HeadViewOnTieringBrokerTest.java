package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.headview.HeadViewConfig;
import io.floe.headview.HeadViewServer;
import io.floe.layout.SegmentSummary;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head view in front of a broker that really tiers through Floe (S3Proxy, JdbcCatalog): while a
 * producer writes and the broker rolls, copies and commits segments, queries through the head view
 * run in a loop. In every result, each partition's offsets are contiguous from 0, without
 * duplicates, up to at least the last offset acknowledged before that query's loadTable began,
 * across the moving boundary between tiered files and the live head.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeadViewOnTieringBrokerTest {
  private static final String TOPIC = "live.orders";
  private static final int PARTITIONS = 2;
  private static final int VALUE_BYTES = 4 * 1024;

  @TempDir static Path dir;

  private FloeCluster cluster;
  private Admin admin;
  private HeadViewServer headView;
  private RESTCatalog client;

  @BeforeAll
  void start() throws Exception {
    cluster = FloeCluster.start(FloeCluster.s3CatalogProperties(dir), Map.of());
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    admin
        .createTopics(
            List.of(
                new NewTopic(TOPIC, PARTITIONS, (short) 1)
                    .configs(
                        Map.of(
                            "remote.storage.enable", "true",
                            "segment.bytes", "1048576",
                            "local.retention.ms", "1000",
                            "retention.ms", "-1"))))
        .all()
        .get();

    Map<String, String> props = new HashMap<>();
    cluster.catalogProperties.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("catalog.name", TestCatalogs.CATALOG_NAME);
    props.put("kafka.bootstrap.servers", cluster.bootstrapServers());
    props.put("listen.port", "0");
    headView = HeadViewServer.start(HeadViewConfig.of(props));

    // The engine's side: Iceberg's REST client, reading the files with its own S3 settings.
    Map<String, String> clientProps = new HashMap<>(cluster.catalogProperties);
    clientProps
        .keySet()
        .removeIf(k -> k.equals("type") || k.equals("uri") || k.startsWith("jdbc."));
    clientProps.put("uri", headView.uri());
    client = new RESTCatalog();
    client.initialize("headview", clientProps);
  }

  @AfterAll
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {client, headView, admin, cluster}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void queriesWhileTheBrokerTiersAreContiguousAndSeeEveryAcknowledgedRecord() throws Exception {
    Map<Integer, AtomicLong> acked = new ConcurrentHashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      acked.put(p, new AtomicLong(-1));
    }
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(TOPIC));
    // Served from the start (as the table the plugin will create), once the broker's metadata has
    // the new topic.
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(() -> client.loadTable(id) != null);
    AtomicBoolean producing = new AtomicBoolean(true);
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    Thread producer = new Thread(() -> produce(acked, producing, producerFailure), "live-producer");
    producer.start();
    int queries = 0;
    int queriesOverTieredAndHead = 0;
    java.util.Set<Long> committedSnapshotsSeen = new java.util.HashSet<>();
    try {
      // Until the broker has tiered at least three segments per partition and a few queries saw
      // both sides.
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
      while (tieredSegments() < 3 * PARTITIONS
          || queriesOverTieredAndHead < 3
          || committedSnapshotsSeen.size() < 3) {
        assertThat(System.nanoTime()).as("tiering progress").isLessThan(deadline);
        assertThat(producerFailure.get()).isNull();
        Map<Integer, Long> before = new TreeMap<>();
        acked.forEach((p, o) -> before.put(p, o.get()));
        Table view = client.loadTable(id);
        assertContiguousFromZero(view, before, queries);
        queries++;
        Long committed = committedSnapshot(view);
        if (committed != null) {
          committedSnapshotsSeen.add(committed);
          if ("true".equals(view.currentSnapshot().summary().get("floe.head"))) {
            queriesOverTieredAndHead++;
          }
        }
      }
    } finally {
      producing.set(false);
      producer.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(producerFailure.get()).isNull();
    Map<Integer, Long> end = new TreeMap<>();
    acked.forEach((p, o) -> end.put(p, o.get()));
    assertContiguousFromZero(client.loadTable(id), end, queries);
    assertThat(queriesOverTieredAndHead).isGreaterThanOrEqualTo(3);
    System.out.printf(
        "%d queries, %d over tiered files + head, %d different committed snapshots under them; acked %s%n",
        queries, queriesOverTieredAndHead, committedSnapshotsSeen.size(), end);
  }

  private void produce(
      Map<Integer, AtomicLong> acked, AtomicBoolean producing, AtomicReference<Throwable> failure) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    Random random = new Random(7);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      while (producing.get()) {
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent =
            new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          byte[] value = new byte[VALUE_BYTES];
          random.nextBytes(value);
          sent.add(
              producer.send(
                  new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value),
                  (m, e) -> {
                    if (e == null) {
                      acked.get(m.partition()).accumulateAndGet(m.offset(), Math::max);
                    }
                  }));
        }
        for (var f : sent) {
          f.get(); // acknowledged: from now on every query must see it
        }
        Thread.sleep(
            20); // paces the producer (about 4 MiB/s), so the broker rolls a segment every ~0.5 s
      }
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  /** Remote segments Kafka lists for the topic (rolled, copied through Floe, committed). */
  private long tieredSegments() throws Exception {
    long segments = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      TopicPartition tp = new TopicPartition(TOPIC, p);
      long tiered =
          admin.listOffsets(Map.of(tp, OffsetSpec.latestTiered())).all().get().get(tp).offset();
      // about 250 records of 4 KiB per 1 MiB segment
      segments += tiered < 0 ? 0 : (tiered + 1) / 200;
    }
    return segments;
  }

  /**
   * The latest snapshot under the view's head that the plugin committed (a segment copy), or null.
   */
  private static Long committedSnapshot(Table view) {
    for (Snapshot s = view.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : view.snapshot(s.parentId())) {
      if (!SegmentSummary.segmentsOf(s.summary()).isEmpty()) {
        return s.snapshotId();
      }
    }
    return null;
  }

  private static void assertContiguousFromZero(
      Table view, Map<Integer, Long> ackedBefore, int query) throws Exception {
    Map<Integer, List<Long>> offsets = new TreeMap<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(view).select("kafka.partition", "kafka.offset").build()) {
      for (Record row : rows) {
        Record kafka = (Record) row.getField("kafka");
        offsets
            .computeIfAbsent((Integer) kafka.getField("partition"), p -> new ArrayList<>())
            .add((Long) kafka.getField("offset"));
      }
    }
    for (Map.Entry<Integer, Long> e : ackedBefore.entrySet()) {
      List<Long> got = new ArrayList<>(offsets.getOrDefault(e.getKey(), List.of()));
      got.sort(Long::compare);
      for (int i = 0; i < got.size(); i++) {
        if (got.get(i) != i) {
          throw new AssertionError(
              "query "
                  + query
                  + ", partition "
                  + e.getKey()
                  + ": offset "
                  + i
                  + " expected at position "
                  + i
                  + " but found "
                  + got.get(i)
                  + " (gap or duplicate)");
        }
      }
      assertThat((long) got.size() - 1)
          .as(
              "query %d, partition %d: the last offset acknowledged before the query",
              query, e.getKey())
          .isGreaterThanOrEqualTo(e.getValue());
    }
  }
}
