package io.floe.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.demo.ChildJvm;
import io.floe.demo.LocalStack;
import io.floe.layout.SegmentSummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.iceberg.Snapshot;
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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Kafka 4.4.0 broker process with the installed plugin is stopped (SIGTERM) and started again on
 * the same data directory, as an operator restarts it. The new process serves the tiered records
 * from the Iceberg table, goes on tiering from where the old one stopped, and copies no segment
 * twice: the snapshots from before the restart are kept, each segment's offsets are in exactly one
 * snapshot, and the table holds every offset once.
 */
class ChildProcessRestartTest {
  private static final Path WORK =
      Path.of(System.getProperty("floe.install.work", "target/install-test")).resolve("restart");
  private static final Path SHIPPED_CONFIG =
      Path.of(
          System.getProperty(
              "floe.install.server-properties", "../../broker-config/server.properties"));
  private static final Path PLUGIN_DIR =
      Path.of(System.getProperty("floe.install.dist", "../floe-dist/target/floe-dist"));
  private static final Path S3PROXY_LIBS =
      Path.of(System.getProperty("floe.install.s3proxy", "../s3proxy/target/libs"));
  private static final String KAFKA = "4.4.0";
  private static final String TOPIC = "restart-events";
  private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
  private static final int VALUE_BYTES = 10 * 1024; // about 100 records a 1 MiB segment

  /** A copy snapshot's segment: its offsets and id. */
  record Copy(long start, long end, String segmentId) {}

  private int brokerPort;
  private int records;

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void tieredDataSurvivesARestartAndNothingIsCopiedTwice() throws Exception {
    deleteRecursively(WORK);
    Path kafkaLibs = Path.of(System.getProperty("floe.install.kafka." + KAFKA));
    int s3Port = ChildJvm.freePort();
    Path s3Dir = WORK.resolve("s3proxy");
    Path s3Config = LocalStack.writeS3ProxyConfig(s3Dir, s3Port);
    try (ChildJvm s3proxy =
        ChildJvm.start(
            "S3Proxy",
            S3PROXY_LIBS,
            LocalStack.s3ProxyJvmArgs(s3Dir),
            "org.gaul.s3proxy.Main",
            List.of("--properties", s3Config.toAbsolutePath().toString()),
            s3Dir.resolve("s3proxy.log"))) {
      await("S3Proxy listening")
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

      Path dir = WORK.resolve("kafka");
      brokerPort = ChildJvm.freePort();
      Map<String, String> extra = new HashMap<>(LocalStack.fastTiering());
      extra.put("rsm.config.iceberg.warehouse", "s3://" + LocalStack.BUCKET + "/restart");
      Path serverProperties =
          LocalStack.writeBrokerConfig(
              SHIPPED_CONFIG, dir, brokerPort, ChildJvm.freePort(), s3Port, PLUGIN_DIR, extra);
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
              .strip()
              .lines()
              .reduce((a, b) -> b)
              .orElseThrow();
      ChildJvm.run(
          "StorageTool format",
          kafkaLibs,
          jvm,
          "kafka.tools.StorageTool",
          List.of(
              "format", "-t", clusterId.strip(), "-c", serverProperties.toString(), "--standalone"),
          dir.resolve("format.log"),
          60);

      long tiered;
      List<Copy> copiesBefore;
      ChildJvm broker = startBroker(kafkaLibs, jvm, serverProperties, dir, "broker-1.log");
      try (Admin admin = admin()) {
        awaitReady(admin, broker);
        admin
            .createTopics(
                List.of(
                    new NewTopic(TOPIC, 1, (short) 1)
                        .configs(
                            Map.of(
                                "remote.storage.enable", "true",
                                "segment.bytes", "1048576",
                                "local.retention.ms", "1000",
                                "retention.ms", "-1"))))
            .all()
            .get(30, TimeUnit.SECONDS);
        produce(250);
        // Stop with no copy in flight: a copy cut short after its commit is, by design, copied
        // again.
        tiered = awaitAllTiered(admin, broker);
        await("local log past the tiered part")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> offset(admin, OffsetSpec.earliestLocal()) > tiered);
        copiesBefore = copies(serverProperties);
        consumeAndCheck(tiered);
      } finally {
        broker.stop(60);
      }
      assertThat(broker.isAlive()).isFalse();
      assertThat(ChildProcessBrokerTest.floeErrors(broker.output()))
          .as("Floe errors in " + broker.log())
          .isEmpty();

      broker = startBroker(kafkaLibs, jvm, serverProperties, dir, "broker-2.log");
      try (Admin admin = admin()) {
        awaitReady(admin, broker);
        await("the restarted broker knows what is tiered")
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> offset(admin, OffsetSpec.latestTiered()) >= tiered);
        assertThat(offset(admin, OffsetSpec.earliestLocal())).isGreaterThan(tiered);
        consumeAndCheck(tiered);

        produce(120);
        long end = awaitAllTiered(admin, broker);
        List<Copy> copiesAfter = copies(serverProperties);
        assertThat(copiesAfter.subList(0, copiesBefore.size()))
            .as("copies from before the restart")
            .isEqualTo(copiesBefore);
        long next = 0;
        for (Copy c : copiesAfter.stream().sorted(Comparator.comparingLong(Copy::start)).toList()) {
          assertThat(c.start())
              .as("start of %s in %s (a segment copied twice?)", c, copiesAfter)
              .isEqualTo(next);
          next = c.end() + 1;
        }
        assertThat(next - 1).as("offsets the table holds").isEqualTo(end);
        assertThat(rowOffsets(serverProperties))
            .as("offsets of the table's rows")
            .isEqualTo(LongStream.rangeClosed(0, end).boxed().toList());
        assertThat(broker.output()).contains("Floe RSM on broker");
        assertThat(ChildProcessBrokerTest.floeErrors(broker.output()))
            .as("Floe errors in " + broker.log())
            .isEmpty();
      } finally {
        broker.stop(60);
      }
    }
  }

  private static ChildJvm startBroker(
      Path libs, List<String> jvm, Path config, Path dir, String log) throws IOException {
    return ChildJvm.start(
        "Kafka " + KAFKA + " broker",
        LocalStack.brokerClasspath(libs, PLUGIN_DIR),
        jvm,
        "kafka.Kafka",
        List.of(config.toString()),
        dir.resolve(log));
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            "127.0.0.1:" + brokerPort,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            10_000,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            5_000));
  }

  private static void awaitReady(Admin admin, ChildJvm broker) {
    await("broker ready")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsMatching(e -> !(e instanceof IllegalStateException))
        .until(
            () -> {
              broker.checkAlive();
              return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
            });
  }

  /**
   * Awaits Kafka tiering everything (local retention rolls an idle active segment) and returns the
   * last offset.
   */
  private static long awaitAllTiered(Admin admin, ChildJvm broker) {
    long[] tiered = {-1};
    await("everything tiered")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              broker.checkAlive();
              tiered[0] = offset(admin, OffsetSpec.latestTiered());
              return tiered[0] >= 0 && tiered[0] == offset(admin, OffsetSpec.latest()) - 1;
            });
    return tiered[0];
  }

  private void produce(int count) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPort);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      // One partition, no transactions: record number n lands at offset n.
      for (int i = 0; i < count; i++, records++) {
        producer.send(new ProducerRecord<>(TOPIC, 0, key(records), value(records)));
      }
      producer.flush();
    }
  }

  /** Reads offsets 0..to from the broker: each the record produced at that offset. */
  private void consumeAndCheck(long to) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPort);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    long[] next = {0};
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(TP));
      consumer.seek(TP, 0);
      await("offsets 0.." + to)
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                  if (r.offset() <= to) {
                    assertThat(r.offset()).isEqualTo(next[0]++);
                    assertThat(r.key()).as("key at %d", r.offset()).isEqualTo(key(r.offset()));
                    assertThat(r.value())
                        .as("value at %d", r.offset())
                        .isEqualTo(value(r.offset()));
                  }
                }
                return consumer.position(TP) > to;
              });
    }
    assertThat(next[0]).isEqualTo(to + 1);
  }

  private static byte[] key(long i) {
    return ("key-" + i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(long i) {
    byte[] value = new byte[VALUE_BYTES];
    new Random(i).nextBytes(value);
    return value;
  }

  private static long offset(Admin admin, OffsetSpec spec) throws Exception {
    return admin
        .listOffsets(Map.of(TP, spec))
        .partitionResult(TP)
        .get(10, TimeUnit.SECONDS)
        .offset();
  }

  /** The copy snapshots in the history of the topic table's current snapshot, in commit order. */
  private static List<Copy> copies(Path serverProperties) throws Exception {
    try (JdbcCatalog catalog = catalog(serverProperties)) {
      Table table = table(catalog, serverProperties);
      List<Copy> out = new ArrayList<>();
      for (Snapshot s = table.currentSnapshot();
          s != null;
          s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
        List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(s.summary());
        for (int i = segments.size() - 1; i >= 0; i--) {
          SegmentSummary.Segment segment = segments.get(i);
          out.add(0, new Copy(segment.startOffset(), segment.endOffset(), segment.segmentId()));
        }
      }
      return out;
    }
  }

  private static List<Long> rowOffsets(Path serverProperties) throws Exception {
    try (JdbcCatalog catalog = catalog(serverProperties)) {
      List<Long> offsets = new ArrayList<>();
      try (CloseableIterable<Record> rows =
          IcebergGenerics.read(table(catalog, serverProperties)).build()) {
        for (Record row : rows) {
          offsets.add((Long) ((Record) row.getField("kafka")).getField("offset"));
        }
      }
      offsets.sort(null);
      return offsets;
    }
  }

  private static JdbcCatalog catalog(Path serverProperties) throws IOException {
    JdbcCatalog catalog = new JdbcCatalog();
    Map<String, String> props = new HashMap<>(LocalStack.catalogProperties(serverProperties));
    props.remove("type");
    catalog.initialize(LocalStack.rsmConfig(serverProperties, "catalog.name", "floe"), props);
    return catalog;
  }

  private static Table table(JdbcCatalog catalog, Path serverProperties) throws IOException {
    Namespace ns =
        Namespace.of(
            LocalStack.rsmConfig(serverProperties, "table.namespace", "kafka").split("\\."));
    for (TableIdentifier id : catalog.listTables(ns)) {
      Table table = catalog.loadTable(id);
      if (TOPIC.equals(table.properties().get("kafka.topic"))) {
        return table;
      }
    }
    throw new AssertionError("no table with kafka.topic=" + TOPIC);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
