package io.floe.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.demo.ChildJvm;
import io.floe.demo.LocalStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plugin installed the way a user installs it: a Kafka broker started as a child process from
 * Kafka's own jars only (Maven Central's 4.4.0, 4.1.2 and 3.9.2), Floe loaded from a dist folder
 * through {@code remote.log.storage.manager.class.path}, the shipped
 * broker-config/server.properties, and S3Proxy as another child process. Data produced from this
 * JVM must be tiered into Iceberg, deleted locally, and come back whole from the remote tier; the
 * broker log must show no Floe error and no class-loading trouble.
 */
class ChildProcessBrokerTest {
  private static final Path WORK =
      Path.of(System.getProperty("floe.install.work", "target/install-test"));
  private static final Path SHIPPED_CONFIG =
      Path.of(
          System.getProperty(
              "floe.install.server-properties", "../../broker-config/server.properties"));
  private static final Path PLUGIN_DIR =
      Path.of(System.getProperty("floe.install.dist", "../floe-dist/target/floe-dist"));
  private static final Path S3PROXY_LIBS =
      Path.of(System.getProperty("floe.install.s3proxy", "../s3proxy/target/libs"));

  private static final int RECORDS = 3000;
  private static final int VALUE_BYTES = 1200; // ~3.4 MiB in all: three to four 1 MiB segments
  private static final Pattern CLASS_TROUBLE =
      Pattern.compile(
          "NoClassDefFoundError|LinkageError|NoSuchMethodError|NoSuchFieldError|AbstractMethodError"
              + "|IncompatibleClassChangeError|UnsatisfiedLinkError|ClassCastException|not a subtype|No SLF4J providers"
              + "|StaticLoggerBinder"); // slf4j 1.7 (Kafka 3.9) without a binding

  private static final String RLMM_INITIALIZED =
      "Initialized topic-based RLMM resources successfully";

  private static ChildJvm s3proxy;
  private static int s3Port;

  @BeforeAll
  static void startS3Proxy() throws Exception {
    Path dir = WORK.resolve("s3proxy");
    deleteRecursively(dir);
    s3Port = ChildJvm.freePort();
    Path config = LocalStack.writeS3ProxyConfig(dir, s3Port);
    s3proxy =
        ChildJvm.start(
            "S3Proxy",
            S3PROXY_LIBS,
            LocalStack.s3ProxyJvmArgs(dir),
            "org.gaul.s3proxy.Main",
            List.of("--properties", config.toAbsolutePath().toString()),
            dir.resolve("s3proxy.log"));
    await("S3Proxy listening on " + s3Port)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              s3proxy.checkAlive();
              try (var socket = new java.net.Socket("127.0.0.1", s3Port)) {
                return true;
              } catch (IOException notYet) {
                return false;
              }
            });
  }

  @AfterAll
  static void stopS3Proxy() {
    if (s3proxy != null) {
      s3proxy.stop(5);
    }
  }

  @ParameterizedTest(name = "Kafka {0}")
  @ValueSource(strings = {"4.4.0", "4.1.2", "3.9.2"})
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void tiersAndServesBackThroughTheInstalledPlugin(String kafkaVersion) throws Exception {
    Path kafkaLibs = Path.of(System.getProperty("floe.install.kafka." + kafkaVersion));
    assertThat(kafkaLibs.resolve("kafka_2.13-" + kafkaVersion + ".jar")).exists();
    assertThat(PLUGIN_DIR).isDirectoryContaining("glob:**/floe-rsm-plugin-*.jar");
    assertThat(PLUGIN_DIR).isDirectoryNotContaining("glob:**/kafka-*.jar");
    assertThat(PLUGIN_DIR).isDirectoryNotContaining("glob:**/slf4j-api-*.jar");
    assertThat(PLUGIN_DIR.resolve("broker-libs"))
        .isDirectoryContaining("glob:**/floe-rlmm-*.jar")
        .isDirectoryNotContaining("glob:**/kafka-*.jar");

    Path dir = WORK.resolve("kafka-" + kafkaVersion);
    deleteRecursively(dir);
    Files.createDirectories(dir);
    int brokerPort = ChildJvm.freePort();
    int controllerPort = ChildJvm.freePort();
    // The warehouse of each run in its own prefix of the shared bucket; the catalog in its own
    // SQLite file
    Map<String, String> extra = new HashMap<>(LocalStack.fastTiering());
    extra.put(
        "rsm.config.iceberg.warehouse", "s3://" + LocalStack.BUCKET + "/kafka-" + kafkaVersion);
    Path serverProperties =
        LocalStack.writeBrokerConfig(
            SHIPPED_CONFIG, dir, brokerPort, controllerPort, s3Port, PLUGIN_DIR, extra);
    List<String> jvm = LocalStack.brokerJvmArgs(dir);

    String clusterId =
        ChildJvm.run(
                "StorageTool random-uuid",
                kafkaLibs,
                jvm,
                "kafka.tools.StorageTool",
                List.of("random-uuid"),
                dir.resolve("random-uuid.log"),
                60)
            .strip();
    clusterId = clusterId.lines().reduce((a, b) -> b).orElseThrow().strip();
    ChildJvm.run(
        "StorageTool format",
        kafkaLibs,
        jvm,
        "kafka.tools.StorageTool",
        List.of("format", "-t", clusterId, "-c", serverProperties.toString(), "--standalone"),
        dir.resolve("format.log"),
        60);

    ChildJvm broker =
        ChildJvm.start(
            "Kafka " + kafkaVersion + " broker",
            LocalStack.brokerClasspath(kafkaLibs, PLUGIN_DIR),
            jvm,
            "kafka.Kafka",
            List.of(serverProperties.toString()),
            dir.resolve("broker.log"));
    String bootstrap = "127.0.0.1:" + brokerPort;
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000))) {
      await("broker " + kafkaVersion + " ready")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .ignoreExceptionsMatching(e -> !(e instanceof IllegalStateException))
          .until(
              () -> {
                broker.checkAlive();
                return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
              });
      if (kafkaVersion.startsWith("3.")) {
        // Kafka 3.9's copy task does not wait for the topic-based metadata manager (the isReady
        // check came with 4.0, KAFKA-17980): until it has initialized, each run logs Kafka's own
        // "IllegalStateException: This instance is in invalid state" ERROR, then retries.
        await("Kafka " + kafkaVersion + " remote log metadata manager initialized")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> {
                  broker.checkAlive();
                  return broker.output().contains(RLMM_INITIALIZED);
                });
      }

      String topic = "install-" + kafkaVersion.replace('.', '-');
      TopicPartition tp = new TopicPartition(topic, 0);
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
          .get(30, TimeUnit.SECONDS);

      produce(bootstrap, topic);

      // Tiered and deleted locally: the local log now starts after the last record that is checked
      // below
      await("local log start of " + tp + " past offset " + (RECORDS - 1))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                broker.checkAlive();
                return offset(admin, tp, OffsetSpec.earliestLocal()) >= RECORDS
                    && offset(admin, tp, OffsetSpec.latestTiered()) >= RECORDS - 1;
              });
      assertThat(offset(admin, tp, OffsetSpec.earliest())).isZero();

      consumeAndCheck(bootstrap, tp);
      assertThat(tableRecords(serverProperties, topic))
          .as("rows of the topic's Iceberg table")
          .isGreaterThanOrEqualTo(RECORDS);

      String log = broker.output();
      assertThat(log).contains("Floe RSM on broker");
      assertThat(log)
          .as("one line per copy, not Iceberg's scan and commit report dumps, in " + broker.log())
          .contains("Copied " + topic + "-0 offsets")
          .doesNotContain("ScanReport{")
          .doesNotContain("CommitReport{");
      assertThat(floeErrors(log))
          .as("ERROR entries about Floe or remote storage in " + broker.log())
          .isEmpty();
      assertThat(CLASS_TROUBLE.matcher(log).find())
          .as("class-loading errors in " + broker.log() + ":\n" + matchingLines(log, CLASS_TROUBLE))
          .isFalse();
    } finally {
      broker.stop(15);
    }
  }

  private static void produce(String bootstrap, String topic) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(topic, 0, key(i), value(i)));
      }
      // Then more than a segment of filler, so the segment holding the last checked record rolls
      // and is tiered
      byte[] filler = new byte[64 * 1024];
      new Random(7).nextBytes(filler);
      for (int i = 0; i < 24; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, 0, ("filler-" + i).getBytes(StandardCharsets.UTF_8), filler));
      }
      producer.flush();
    }
  }

  private static void consumeAndCheck(String bootstrap, TopicPartition tp) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, 0);
      List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
      await("records 0.." + (RECORDS - 1) + " from the remote tier")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                  if (r.offset() < RECORDS) {
                    got.add(r);
                  }
                }
                return consumer.position(tp) >= RECORDS;
              });
      assertThat(got).hasSize(RECORDS);
      for (int i = 0; i < RECORDS; i++) {
        ConsumerRecord<byte[], byte[]> r = got.get(i);
        assertThat(r.offset()).isEqualTo(i);
        assertThat(r.key()).as("key at offset %d", i).isEqualTo(key(i));
        assertThat(r.value()).as("value at offset %d", i).isEqualTo(value(i));
      }
    }
  }

  /**
   * total-records of the current snapshot of the topic's table, read through the same JDBC catalog.
   */
  private static long tableRecords(Path serverProperties, String topic) throws Exception {
    try (org.apache.iceberg.jdbc.JdbcCatalog catalog = new org.apache.iceberg.jdbc.JdbcCatalog()) {
      Map<String, String> props = new HashMap<>(LocalStack.catalogProperties(serverProperties));
      props.remove("type");
      catalog.initialize(LocalStack.rsmConfig(serverProperties, "catalog.name", "floe"), props);
      org.apache.iceberg.catalog.Namespace ns =
          org.apache.iceberg.catalog.Namespace.of(
              LocalStack.rsmConfig(serverProperties, "table.namespace", "kafka").split("\\."));
      for (org.apache.iceberg.catalog.TableIdentifier id : catalog.listTables(ns)) {
        org.apache.iceberg.Table table = catalog.loadTable(id);
        if (topic.equals(table.properties().get("kafka.topic"))) {
          return Long.parseLong(table.currentSnapshot().summary().get("total-records"));
        }
      }
      throw new AssertionError(
          "no table with kafka.topic=" + topic + " in " + catalog.listTables(ns));
    }
  }

  private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
    return admin
        .listOffsets(Map.of(tp, spec))
        .partitionResult(tp)
        .get(10, TimeUnit.SECONDS)
        .offset();
  }

  private static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Half random, half text: compressible, but not to nothing. */
  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    new Random(i).nextBytes(v);
    byte[] text = ("{\"id\":" + i + ",\"payload\":\"").repeat(40).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(text, 0, v, 0, Math.min(text.length, VALUE_BYTES / 2));
    return v;
  }

  /** ERROR entries (the line and its stack trace) that name Floe or Kafka's remote-storage code. */
  static List<String> floeErrors(String log) {
    List<String> entries = new ArrayList<>();
    StringBuilder current = null;
    for (String line : log.split("\n")) {
      if (line.startsWith("[")) {
        if (current != null) {
          entries.add(current.toString());
        }
        current = line.contains("] ERROR ") ? new StringBuilder(line) : null;
      } else if (current != null) {
        current.append('\n').append(line);
      }
    }
    if (current != null) {
      entries.add(current.toString());
    }
    Pattern floe =
        Pattern.compile(
            "io\\.floe|Floe|RemoteStorage|RemoteLog|remote\\.storage", Pattern.CASE_INSENSITIVE);
    return entries.stream().filter(e -> floe.matcher(e).find()).toList();
  }

  private static String matchingLines(String log, Pattern p) {
    return String.join("\n", log.lines().filter(l -> p.matcher(l).find()).limit(20).toList());
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
