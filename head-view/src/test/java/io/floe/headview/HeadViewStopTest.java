package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.layout.TopicTableOptions;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping the head view while the object store is unreachable, as users stop it: SIGTERM to the
 * service's own JVM.
 */
class HeadViewStopTest {
  private static final String BUCKET = "floe-stop";
  private static final String TOPIC = "stops";
  private static final String TABLE_PREFIX = "warehouse/kafka/" + TOPIC + "/";
  private static final long SHUTDOWN_MS = 4_000;

  /** JVM exit after the service's shutdown hook, on a loaded machine. */
  private static final long EXIT_MARGIN_MS = 3_000;

  private static final long LEFTOVER_AGE_MS = 6_000;

  @TempDir static Path dir;

  private static KafkaClusterTestKit kafka;
  private static Admin admin;
  private static StoppableS3 s3;

  @BeforeAll
  static void start() throws Exception {
    kafka = TestKafka.start(Map.of());
    admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    s3 = new StoppableS3();
    s3.createBucket(BUCKET);
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {admin, kafka, s3}) {
      if (c != null) {
        c.close();
      }
    }
  }

  /**
   * SIGTERM with the object store down: the service exits within shutdown.timeout.ms and logs what
   * it leaves behind; a head view started later deletes exactly that, and neither the table's own
   * files nor the files of another head view that is running.
   */
  @Test
  void stoppedWithTheObjectStoreDownItExitsInTimeAndTheNextStartCleansUp() throws Exception {
    Map<String, String> catalogProps = catalogProperties("catalog.db");
    String topicId = createTopic(TOPIC);
    produce(0, 30);
    Map<String, String> props =
        TestHeadViewConfig.properties(catalogProps, kafka.bootstrapServers());
    s3.fileIoProperties().forEach((k, v) -> props.put("client." + k, v));
    props.put("shutdown.timeout.ms", Long.toString(SHUTDOWN_MS));
    props.put("head.leftover-age-ms", Long.toString(LEFTOVER_AGE_MS));
    TableIdentifier id = TableIdentifier.of("kafka", TOPIC);
    try (JdbcCatalog catalog = new JdbcCatalog()) {
      catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
      Table real =
          new TopicTables(catalog, TopicTableOptions.builder().build()).resolve(TOPIC, topicId);
      commitTiered(real, 0, 0, 10);

      // A head view in its own JVM serves three heads (built, extended, rebuilt after a tier
      // commit: the superseded one is kept for head.cache-ttl-ms).
      Set<String> tableFiles;
      Set<String> leftBehind;
      String folder;
      try (HeadViewProcess child =
              HeadViewProcess.start(props, Files.createDirectories(dir.resolve("child")));
          RESTCatalog client = restClient(child.uri())) {
        assertThat(read(client.loadTable(id))).hasSize(60);
        produce(30, 10);
        assertThat(read(client.loadTable(id))).hasSize(80);
        commitTiered(real, 1, 0, 20);
        assertThat(read(client.loadTable(id))).hasSize(80);
        tableFiles = tableFiles();
        leftBehind = headFiles();
        folder = folderOf(child.log());
        assertThat(leftBehind).allMatch(k -> k.startsWith(folder + "/")).hasSizeGreaterThan(8);

        s3.stop();
        Duration took = child.terminate(Duration.ofSeconds(120));
        String log = child.log();
        assertThat(took).as("exit after SIGTERM; log:%n%s", log).isNotNull();
        assertThat(took).as(log).isLessThan(Duration.ofMillis(SHUTDOWN_MS + EXIT_MARGIN_MS));
        assertThat(log)
            .contains(
                "Stopping the head view (shutdown.timeout.ms="
                    + SHUTDOWN_MS
                    + "): deleting "
                    + leftBehind.size()
                    + " head objects in 1 folder(s)")
            .contains(
                "left "
                    + leftBehind.size()
                    + " head objects behind ("
                    + leftBehind.size()
                    + " in s3://"
                    + BUCKET
                    + "/"
                    + folder
                    + "/): the object store failed")
            .contains("Connection refused")
            .contains("Head view stopped in");
      }
      s3.start();
      assertThat(headFiles()).isEqualTo(leftBehind);

      // Another head view, running, has its own folder in the same place; one started next
      // deletes the stopped process's folder, and only that.
      Map<String, String> inProcess = new HashMap<>(props);
      // Their stops must delete everything: requests bounded by 2 s, not 0.8 s (a loaded machine).
      inProcess.put("shutdown.timeout.ms", "20000");
      try (HeadViewServer running = HeadViewServer.start(HeadViewConfig.of(inProcess));
          RESTCatalog runningClient = restClient(running.uri())) {
        assertThat(read(runningClient.loadTable(id))).hasSize(80);
        Set<String> runningFiles = new HashSet<>(headFiles());
        runningFiles.removeAll(leftBehind);
        assertThat(runningFiles).isNotEmpty().noneMatch(k -> k.startsWith(folder + "/"));
        try (HeadViewServer next = HeadViewServer.start(HeadViewConfig.of(inProcess))) {
          await()
              .atMost(Duration.ofMillis(LEFTOVER_AGE_MS + 30_000))
              .untilAsserted(() -> assertThat(headFiles()).doesNotContainAnyElementsOf(leftBehind));
          // The running head view's folder is looked at again after the leftover age, and kept.
          await()
              .during(Duration.ofMillis(LEFTOVER_AGE_MS + 2_000))
              .atMost(Duration.ofMillis(LEFTOVER_AGE_MS + 10_000))
              .untilAsserted(() -> assertThat(headFiles()).containsAll(runningFiles));
          assertThat(read(runningClient.loadTable(id))).hasSize(80);
        }
      }
      assertThat(tableFiles()).isEqualTo(tableFiles);
      assertThat(headFiles()).isEmpty();
    }
  }

  /**
   * An object store that accepts connections but never answers: each delete request on stop is
   * tried once and times out after a fifth of shutdown.timeout.ms, so the stop ends well within the
   * bound, with nothing deleted.
   */
  @Test
  void anObjectStoreThatHangsDoesNotHoldUpTheStop() throws Exception {
    String topic = "silent";
    String topicId = createTopic(topic);
    produce(topic, 0, 20);
    long bound = 6_000;
    try (TcpRelay relay = new TcpRelay(s3.endpoint().getPort());
        JdbcCatalog catalog = new JdbcCatalog()) {
      Map<String, String> catalogProps = catalogProperties("silent.db");
      catalogProps.put("s3.endpoint", "http://127.0.0.1:" + relay.port());
      catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
      new TopicTables(catalog, TopicTableOptions.builder().build()).resolve(topic, topicId);
      Map<String, String> props =
          TestHeadViewConfig.properties(catalogProps, kafka.bootstrapServers());
      s3.fileIoProperties().forEach((k, v) -> props.put("client." + k, v));
      props.put("shutdown.timeout.ms", Long.toString(bound));
      String heads = "warehouse/kafka/" + topic + "/floe-head/";
      HeadViewServer server = HeadViewServer.start(HeadViewConfig.of(props));
      try (RESTCatalog client = restClient(server.uri())) {
        assertThat(read(client.loadTable(TableIdentifier.of("kafka", topic)))).hasSize(40);
      }
      List<String> written = s3.keys(BUCKET, heads);
      assertThat(written).isNotEmpty();

      relay.mute();
      long started = System.nanoTime();
      server.close();
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(took).isLessThan(Duration.ofMillis(bound / 2));
      assertThat(s3.keys(BUCKET, heads)).containsExactlyInAnyOrderElementsOf(written);
    }
  }

  /** The folder of the process that wrote {@code log}: floe-head/ and its instance id. */
  private static String folderOf(String log) {
    Matcher m = Pattern.compile("Head view instance (\\S+):").matcher(log);
    assertThat(m.find()).as(log).isTrue();
    return TABLE_PREFIX + "floe-head/" + m.group(1);
  }

  /** Keys under the table location that are not head files. */
  private static Set<String> tableFiles() {
    return s3.keys(BUCKET, TABLE_PREFIX).stream()
        .filter(k -> !k.startsWith(TABLE_PREFIX + "floe-head/"))
        .collect(Collectors.toSet());
  }

  private static Set<String> headFiles() {
    return new HashSet<>(s3.keys(BUCKET, TABLE_PREFIX + "floe-head/"));
  }

  private static Map<String, String> catalogProperties(String db) {
    Map<String, String> props = new HashMap<>(s3.fileIoProperties());
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve(db));
    props.put("jdbc.schema-version", "V1");
    props.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + BUCKET + "/warehouse");
    return props;
  }

  private static String createTopic(String topic) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    // Right after the create, the broker's metadata may not have the topic yet.
    return await("topic " + topic + " described")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptionsMatching(e -> e.getCause() instanceof UnknownTopicOrPartitionException)
        .until(
            () ->
                admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .topicId()
                    .toString(),
            java.util.Objects::nonNull);
  }

  private static RESTCatalog restClient(String uri) {
    RESTCatalog c = new RESTCatalog();
    c.initialize("stops", Map.of("uri", uri));
    return c;
  }

  private static void produce(int first, int count) throws Exception {
    produce(TOPIC, first, count);
  }

  private static void produce(String topic, int first, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "acks", "all"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      List<Future<?>> acks = new ArrayList<>();
      for (int i = first; i < first + count; i++) {
        for (int p = 0; p < 2; p++) {
          byte[] value = ("v" + p + "/" + i).getBytes(StandardCharsets.UTF_8);
          acks.add(producer.send(new ProducerRecord<>(topic, p, null, value)));
        }
      }
      for (Future<?> a : acks) {
        a.get();
      }
    }
  }

  private static void commitTiered(Table table, int partition, long from, long to)
      throws Exception {
    try (Tierer tierer =
        new Tierer(kafka.bootstrapServers(), table.properties().get("kafka.topic"))) {
      tierer.commit(table, partition, from, to);
    }
  }

  private static List<Record> read(Table table) throws Exception {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.copy()));
    }
    return out;
  }
}
