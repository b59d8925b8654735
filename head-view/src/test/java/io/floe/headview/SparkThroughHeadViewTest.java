package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.LocalS3;
import io.floe.testing.SparkSqlRunner;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Spark SQL (child JVM) through the head view's REST catalog, with the bearer token and
 * S3FileIO against S3Proxy: a topic whose table holds a tiered prefix and whose head (acknowledged,
 * not tiered, with an aborted transaction in it) is only in Kafka reads back as every committed
 * record once, and Spark's writes are refused.
 */
class SparkThroughHeadViewTest {
  private static final String TOKEN = "spark-" + UUID.randomUUID();
  private static final String TOPIC = "clicks";
  private static final int PARTITIONS = 2;

  @TempDir static Path dir;

  private static KafkaClusterTestKit kafka;
  private static Admin admin;
  private static Map<String, String> catalogProps;
  private static JdbcCatalog catalog;
  private static HeadViewServer server;

  @BeforeAll
  static void start() throws Exception {
    kafka = TestKafka.start(Map.of());
    admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));

    catalogProps = TestCatalogs.properties(dir, TestCatalogs.Storage.S3);
    catalog = new JdbcCatalog();
    catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);

    Map<String, String> props =
        TestHeadViewConfig.properties(catalogProps, kafka.bootstrapServers());
    props.put("auth.token", TOKEN);
    props.put("head.kafka-timeout-ms", "20000");
    server = HeadViewServer.start(HeadViewConfig.of(props));
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {server, catalog, admin, kafka}) {
      if (c != null) {
        c.close();
      }
    }
  }

  @Test
  void sparkReadsTieredPlusHeadAndCannotWrite() throws Exception {
    admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    String topicId =
        admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId().toString();
    produce(0, 40);
    Table real =
        new TopicTables(catalog, TopicTableOptions.builder().build()).resolve(TOPIC, topicId);
    // Partition 0 tiered to 25, partition 1 whole: the head view builds a head of partition 0's
    // 25..39 alone (a file of that partition). Then the real table passes part of it: the file is
    // carried over with its rows below 30 hidden by a position delete, which Spark must apply (or
    // read offsets 25..29 twice).
    commitTiered(real, 0, 0, 25);
    commitTiered(real, 1, 0, 40);
    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("warm", Map.of("uri", server.uri() + "/", "token", TOKEN));
      client.loadTable(TableIdentifier.of("kafka", TOPIC));
    }
    commitTiered(real, 0, 25, 30);
    // The head: more acknowledged records, an aborted and a committed transaction, none of it
    // tiered.
    produce(40, 20);
    try (KafkaProducer<byte[], byte[]> txn =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                "transactional.id",
                "spark-head-view"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      txn.initTransactions();
      for (boolean commit : new boolean[] {false, true}) {
        txn.beginTransaction();
        for (int p = 0; p < PARTITIONS; p++) {
          for (int i = 0; i < 5; i++) {
            txn.send(
                new ProducerRecord<>(
                    TOPIC, p, bytes("k" + i), bytes((commit ? "txn-" : "aborted-") + i)));
          }
        }
        txn.flush();
        if (commit) {
          txn.commitTransaction();
        } else {
          txn.abortTransaction();
        }
      }
    }
    List<String> expected = committedRecords();
    real.refresh();
    long realSnapshot = real.currentSnapshot().snapshotId();

    Map<String, String> conf =
        new HashMap<>(
            SparkSqlRunner.icebergCatalog(
                "headview", Map.of("type", "rest", "uri", server.uri() + "/", "token", TOKEN)));
    LocalS3.get()
        .fileIoProperties()
        .forEach((k, v) -> conf.put("spark.sql.catalog.headview." + k, v));
    String table = "headview.kafka." + TOPIC;
    long started = System.nanoTime();
    List<SparkSqlRunner.Result> results =
        SparkSqlRunner.run(
            dir.resolve("spark"),
            conf,
            List.of(
                "SELECT kafka.partition AS partition, kafka.offset AS offset, key, value, headers FROM "
                    + table,
                "INSERT INTO " + table + " SELECT * FROM " + table + " LIMIT 1",
                "CREATE TABLE headview.kafka.spark_made (id BIGINT)"),
            Duration.ofMinutes(5));
    System.out.printf(
        "Spark through the head view: %d ms%n", (System.nanoTime() - started) / 1_000_000);

    SparkSqlRunner.Result read = results.get(0).requireOk();
    List<String> rows =
        read.rows().stream().map(SparkThroughHeadViewTest::describe).sorted().toList();
    assertThat(rows).as("every committed record once, tiered and head").isEqualTo(expected);
    assertThat(rows).noneMatch(r -> r.contains("aborted-"));
    assertThat(read.scanOf("kafka." + TOPIC).get("resultDataFiles").asLong())
        .as("tiered files plus head files")
        .isGreaterThan(PARTITIONS);
    assertThat(read.scanOf("kafka." + TOPIC).get("resultDeleteFiles").asLong())
        .as("the head's position deletes")
        .isPositive();

    for (SparkSqlRunner.Result write : results.subList(1, 3)) {
      System.out.printf("Spark %s -> %s%n", write.sql(), write.error());
      assertThat(write.error())
          .as(write.sql())
          .isNotNull()
          .contains("read-only")
          .contains("Write through the backing catalog 'floe'")
          .doesNotContain(TOKEN)
          .doesNotContain(LocalS3.SECRET_KEY);
    }
    real.refresh();
    assertThat(real.currentSnapshot().snapshotId())
        .as("the real table is untouched")
        .isEqualTo(realSnapshot);
    assertThat(catalog.tableExists(TableIdentifier.of("kafka", "spark_made"))).isFalse();
  }

  /**
   * What a read_committed consumer reads of the whole topic, as sorted "partition/offset key=..
   * value=.. h=..".
   */
  private static List<String> committedRecords() {
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers", kafka.bootstrapServers(), "isolation.level", "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("reading the topic within 60 s").isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          StringBuilder s =
              new StringBuilder(
                  String.format(
                      "%d/%06d key=%s value=%s h=",
                      r.partition(), r.offset(), string(r.key()), string(r.value())));
          r.headers()
              .forEach(h -> s.append(h.key()).append(':').append(string(h.value())).append(','));
          out.add(s.toString());
        }
      }
    }
    out.sort(null);
    return out;
  }

  private static String describe(JsonNode row) {
    StringBuilder s =
        new StringBuilder(
            String.format(
                "%d/%06d key=%s value=%s h=",
                row.get("partition").asInt(),
                row.get("offset").asLong(),
                base64(row.get("key")),
                base64(row.get("value"))));
    for (JsonNode h : row.get("headers")) {
      s.append(h.get("key").asText()).append(':').append(base64(h.get("value"))).append(',');
    }
    return s.toString();
  }

  private static String base64(JsonNode v) {
    return v == null || v.isNull() ? null : string(Base64.getDecoder().decode(v.asText()));
  }

  private static String string(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void produce(int first, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "acks", "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
      for (int i = first; i < first + count; i++) {
        for (int p = 0; p < PARTITIONS; p++) {
          ProducerRecord<byte[], byte[]> r =
              new ProducerRecord<>(
                  TOPIC,
                  p,
                  bytes("key-" + p + "-" + i),
                  i % 9 == 0 ? null : bytes("value-" + p + "-" + i));
          r.headers().add("n", bytes(Integer.toString(i)));
          acks.add(producer.send(r));
        }
      }
      for (var a : acks) {
        a.get();
      }
    }
  }

  /**
   * Stands in for the plugin having tiered offsets [from, to) of a partition (see {@link Tierer}).
   */
  private static void commitTiered(Table table, int partition, long from, long to)
      throws Exception {
    try (Tierer tierer = new Tierer(kafka.bootstrapServers(), TOPIC)) {
      tierer.commit(table, partition, from, to);
    }
  }
}
