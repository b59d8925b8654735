package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.layout.TopicTableOptions;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
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
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The head view against a real in-process KRaft broker and a real JdbcCatalog on SQLite (local
 * warehouse), read through Iceberg's own REST catalog client.
 */
class HeadViewServerTest {
  private static final String TOKEN = "s3cret-" + UUID.randomUUID();

  @TempDir static Path dir;

  private static KafkaClusterTestKit kafka;
  private static Admin admin;
  private static JdbcCatalog catalog;
  private static TopicTables topicTables;
  private static HeadViewServer server;
  private static RESTCatalog client;

  @BeforeAll
  static void start() throws Exception {
    // Tiered storage on, so that topics can be created with remote.storage.enable=true (the head
    // view serves a
    // tiered topic before its first segment is tiered). Kafka's own test RSM stands in for the
    // plugin; nothing
    // here rolls a segment, so it never receives a copy.
    kafka =
        TestKafka.start(
            Map.of(
                "remote.log.storage.system.enable", "true",
                "remote.log.storage.manager.class.name",
                    "org.apache.kafka.server.log.remote.storage.LocalTieredStorage",
                "remote.log.storage.manager.impl.prefix", "rsm.config.",
                "rsm.config.dir", dir.resolve("kafka-remote").toString(),
                "remote.log.metadata.manager.listener.name", "EXTERNAL",
                "rlmm.config.remote.log.metadata.topic.replication.factor", "1",
                "rlmm.config.remote.log.metadata.topic.num.partitions", "1"));
    admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));

    catalog = TestCatalogs.jdbc(dir, TestCatalogs.Storage.LOCAL);
    topicTables = new TopicTables(catalog, TopicTableOptions.builder().build());

    Map<String, String> props =
        TestHeadViewConfig.properties(
            TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL), kafka.bootstrapServers());
    props.put("auth.token", TOKEN);
    props.put("head.kafka-timeout-ms", "20000");
    server = HeadViewServer.start(HeadViewConfig.of(props));
    client = restClient(TOKEN);
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {client, server, catalog, admin, kafka}) {
      if (c != null) {
        c.close();
      }
    }
  }

  private static RESTCatalog restClient(String token) {
    RESTCatalog c = new RESTCatalog();
    c.initialize("headview", Map.of("uri", server.uri(), "token", token));
    return c;
  }

  @Test
  void readYourWritesAcrossCommittedAndHead() throws Exception {
    String topic = "orders.v1";
    String topicId = createTopic(topic, 2);
    produce(topic, 2, 0, 50);
    Table real = topicTables.resolve(topic, topicId);
    for (int p = 0; p < 2; p++) {
      commitTiered(real, topic, p, 0, 20);
    }
    real.refresh();
    long committedSnapshot = real.currentSnapshot().snapshotId();
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(topic));

    assertRows(read(client.loadTable(id)), 2, 50);

    // More records: the next query sees them (the cached head is extended with just these).
    produce(topic, 2, 50, 30);
    Table second = client.loadTable(id);
    assertRows(read(second), 2, 80);
    assertThat(second.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:50-79,1:50-79");

    // Nothing new: the same head comes back.
    assertThat(client.loadTable(id).currentSnapshot().snapshotId())
        .isEqualTo(second.currentSnapshot().snapshotId());

    // The real table moves on (more tiered): the head is rebuilt from the new boundary, no
    // duplicates.
    commitTiered(real, topic, 0, 20, 45);
    produce(topic, 2, 80, 5);
    Table third = client.loadTable(id);
    assertRows(read(third), 2, 85);
    assertThat(third.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:45-84,1:20-84");

    // The view never touched the real table.
    real.refresh();
    assertThat(real.history()).hasSize(3);
    assertThat(real.currentSnapshot().summary()).doesNotContainKey(HeadView.SUMMARY_HEAD);
    assertThat(third.currentSnapshot().parentId()).isEqualTo(real.currentSnapshot().snapshotId());
    assertThat(committedSnapshot).isNotEqualTo(real.currentSnapshot().snapshotId());
  }

  @Test
  void aLargeHeadIsReadFromKafkaWhileItIsWritten() throws Exception {
    String topic = "large_head";
    topicTables.resolve(topic, createTopic(topic, 2));
    int perPartition = 3_000;
    assertThat(2L * perPartition).isGreaterThanOrEqualTo(ConsumerReads.READ_AHEAD_MIN_RECORDS);
    produce(topic, 2, 0, perPartition);
    Table head = client.loadTable(TableIdentifier.of("kafka", topic));
    assertRows(read(head), 2, perPartition);
    assertThat(head.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:0-2999,1:0-2999");
  }

  @Test
  void smallIncrementsShareOneFileAndATierCommitKeepsOnlyWhatLiesPastIt() throws Exception {
    String topic = "many_parts";
    Table real = producedAndLoaded(topic, 3, 20);
    TableIdentifier id = TableIdentifier.of("kafka", topic);

    // An increment over three partitions is one data file of the unpartitioned spec the view adds.
    produce(topic, 3, 20, 10);
    Table second = client.loadTable(id);
    assertRows(read(second), 3, 30);
    assertThat(second.currentSnapshot().addedDataFiles(second.io()))
        .hasSize(1)
        .allMatch(f -> second.specs().get(f.specId()).isUnpartitioned());
    assertThat(second.spec().isPartitioned()).isTrue();

    // Partition 0 is tiered up to 25: both shared files hold offsets below it, so they are dropped
    // and the cuts
    // of every partition move past them; no gap, no duplicate.
    commitTiered(real, topic, 0, 0, 25);
    Table third = client.loadTable(id);
    assertRows(read(third), 3, 30);
    assertThat(third.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:25-29,1:0-29,2:0-29");

    // Many small increments: the head keeps at most MAX_HEAD_SNAPSHOTS snapshots on top of the real
    // table.
    for (int i = 0; i < HeadPlanner.MAX_HEAD_SNAPSHOTS + 3; i++) {
      produce(topic, 3, 30 + i, 1);
      Table t = client.loadTable(id);
      real.refresh();
      assertThat(t.snapshots())
          .hasSizeLessThanOrEqualTo(real.history().size() + HeadPlanner.MAX_HEAD_SNAPSHOTS);
    }
    assertRows(read(client.loadTable(id)), 3, 30 + HeadPlanner.MAX_HEAD_SNAPSHOTS + 3);
  }

  @Test
  void anotherWritersCommitMovesTheHeadPastTheOffsetsItsFilesHold() throws Exception {
    String topic = "other_writer";
    Table real = producedAndLoaded(topic, 2, 30);
    TableIdentifier id = TableIdentifier.of("kafka", topic);

    // A segment commit moves the boundary by its summary, another writer's by its files' offsets.
    commitTiered(real, topic, 0, 0, 10);
    assertRows(read(client.loadTable(id)), 2, 30);
    try (Tierer tierer = new Tierer(kafka.bootstrapServers(), topic)) {
      tierer.commitWithoutSummary(real, 1, 0, 20);
      tierer.commitWithoutSummary(real, 0, 10, 25);
    }
    produce(topic, 2, 30, 5);
    Table head = client.loadTable(id);
    assertRows(read(head), 2, 35);
    assertThat(head.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:25-34,1:20-34");
  }

  @Test
  void abortedTransactionsNeverShowAndAnEmptyTableGetsItsWholeHead() throws Exception {
    String topic = "payments";
    String topicId = createTopic(topic, 1);
    Table real = topicTables.resolve(topic, topicId); // nothing tiered: no snapshot at all
    assertThat(real.currentSnapshot()).isNull();

    Map<String, Object> props = new HashMap<>();
    props.put("bootstrap.servers", kafka.bootstrapServers());
    props.put("transactional.id", "head-view-test");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      sendTxn(producer, topic, "committed-a", 5, true);
      sendTxn(producer, topic, "aborted", 5, false);
      sendTxn(producer, topic, "committed-b", 3, true);
    }
    Table view = client.loadTable(TableIdentifier.of("kafka", topic));
    List<Record> rows = read(view);
    List<String> values =
        rows.stream().map(r -> string((ByteBuffer) r.getField("value"))).sorted().toList();
    assertThat(values)
        .hasSize(8)
        .allMatch(v -> v.startsWith("committed-"))
        .noneMatch(v -> v.contains("aborted"));
    assertThat(rows.stream().map(r -> offset(r)).sorted().toList())
        .containsExactly(0L, 1L, 2L, 3L, 4L, 12L, 13L, 14L);

    // An open transaction is past the last stable offset: it does not show either.
    props.put("transactional.id", "head-view-test-open");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer
          .send(new ProducerRecord<>(topic, 0, null, "open".getBytes(StandardCharsets.UTF_8)))
          .get();
      producer.flush();
      assertThat(read(client.loadTable(TableIdentifier.of("kafka", topic)))).hasSize(8);
      producer.abortTransaction();
    }
    real.refresh();
    assertThat(real.currentSnapshot()).isNull();

    // The real table takes offsets 0..12: the head file (offsets 0..4 and 12..14, the aborted ones
    // and the markers in between absent) is carried over with its rows below 13 hidden, found from
    // its offset column.
    commitTiered(real, topic, 0, 0, 13);
    Table trimmed = client.loadTable(TableIdentifier.of("kafka", topic));
    assertThat(trimmed.currentSnapshot().addedDeleteFiles(trimmed.io())).hasSize(1);
    List<Record> after = read(trimmed);
    assertThat(after.stream().map(r -> offset(r)).sorted().toList())
        .containsExactly(0L, 1L, 2L, 3L, 4L, 12L, 13L, 14L);
    assertThat(after.stream().map(r -> string((ByteBuffer) r.getField("value"))).toList())
        .noneMatch(v -> v.contains("aborted"));
  }

  /**
   * Tier commits passing one head file bit by bit: each trim's delete file hides only the rows from
   * the previous cut to its own (the earlier delete files still hide the rest), and every record
   * shows once.
   */
  @Test
  void aFileTrimmedTwiceHidesOnlyTheRowsBetweenTheTwoCutsTheSecondTime() throws Exception {
    String topic = "trimmed.twice";
    String topicId = createTopic(topic, 1);
    Table real = topicTables.resolve(topic, topicId);
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(topic));
    produce(topic, 1, 0, 40);
    assertRows(read(client.loadTable(id)), 1, 40);

    commitTiered(real, topic, 0, 0, 10);
    Table once = client.loadTable(id);
    assertRows(read(once), 1, 40);
    assertThat(deleteRowCounts(once)).containsExactly(10L);

    commitTiered(real, topic, 0, 10, 25);
    Table twice = client.loadTable(id);
    assertRows(read(twice), 1, 40);
    assertThat(deleteRowCounts(twice)).containsExactlyInAnyOrder(10L, 15L);
    assertThat(twice.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:25-39");
  }

  /**
   * A load after a tier commit adds a row delta to the view; it must keep the table's manifests as
   * they are, even when they reach the table's merge threshold (it would otherwise read them all
   * and write merged copies under the scratch prefix).
   */
  @Test
  void aLoadAfterATierCommitNeverRewritesTheTablesManifests() throws Exception {
    String topic = "many.manifests";
    String topicId = createTopic(topic, 1);
    Table real = topicTables.resolve(topic, topicId);
    real.updateProperties().set(TableProperties.MANIFEST_MIN_MERGE_COUNT, "4").commit();
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(topic));
    produce(topic, 1, 0, 40);
    commitTiered(real, topic, 0, 0, 2);
    commitTiered(real, topic, 0, 2, 4);
    assertRows(read(client.loadTable(id)), 1, 40);

    commitTiered(real, topic, 0, 4, 10);
    real.refresh();
    Set<String> tableManifests =
        real.currentSnapshot().dataManifests(real.io()).stream()
            .map(ManifestFile::path)
            .collect(Collectors.toSet());
    assertThat(tableManifests).as("the table's own commits merged nothing yet").hasSize(3);
    Table view = client.loadTable(id);
    assertRows(read(view), 1, 40);
    assertThat(deleteRowCounts(view)).as("the head file is trimmed: a row delta").isNotEmpty();
    assertThat(
            view.currentSnapshot().dataManifests(view.io()).stream()
                .map(ManifestFile::path)
                .collect(Collectors.toSet()))
        .containsAll(tableManifests);
  }

  /**
   * The first copy may create a topic's table between the view's catalog lookup missing it and the
   * view staging it: the view then serves the created table, not "no such table".
   */
  @Test
  void aTableCreatedWhileTheViewStagedItIsServed() throws Exception {
    String topic = "raced-events";
    admin
        .createTopics(
            List.of(
                new NewTopic(topic, 1, (short) 1).configs(Map.of("remote.storage.enable", "true"))))
        .all()
        .get();
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(topic));
    NoSuchTableException missed = new NoSuchTableException("Table does not exist: %s", id);
    Table created = topicTables.resolve(topic, topicId(topic));
    HeadViewConfig config =
        HeadViewConfig.of(
            TestHeadViewConfig.properties(
                TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL),
                kafka.bootstrapServers()));
    try (KafkaHead head = new KafkaHead(config.kafkaProperties(), config.kafkaTimeoutMs())) {
      Table served = new UntieredTopics(catalog, head, config).table(id, missed);
      assertThat(served.uuid()).isEqualTo(created.uuid());
    }
  }

  @Test
  void aTieredTopicWithoutTableYetIsServedFromItsFirstRecord() throws Exception {
    String topic = "Fresh-Events";
    admin
        .createTopics(
            List.of(
                new NewTopic(topic, 2, (short) 1).configs(Map.of("remote.storage.enable", "true"))))
        .all()
        .get();
    TableIdentifier id = TableIdentifier.of("kafka", TopicTables.baseTableName(topic));

    // Nothing produced, nothing tiered: the table the plugin will create, empty.
    Table empty = client.loadTable(id);
    assertThat(empty.currentSnapshot()).isNull();
    assertThat(empty.properties()).containsEntry("kafka.topic", topic);

    assertThat(client.tableExists(id)).isTrue();
    assertThat(client.listTables(Namespace.of("kafka"))).containsOnlyOnce(id);

    produce(topic, 2, 0, 40);
    assertRows(read(client.loadTable(id)), 2, 40);
    assertThat(catalog.tableExists(id))
        .as("the view creates nothing in the real catalog")
        .isFalse();

    // A topic without tiered storage never gets a table, so the view shows none either.
    createTopic("plain-topic", 1);
    produce("plain-topic", 1, 0, 5);
    assertThatThrownBy(() -> client.loadTable(TableIdentifier.of("kafka", "plain_topic")))
        .isInstanceOf(NoSuchTableException.class);
    assertThat(client.tableExists(TableIdentifier.of("kafka", "plain_topic"))).isFalse();
    assertThat(client.listTables(Namespace.of("kafka")))
        .doesNotContain(TableIdentifier.of("kafka", "plain_topic"));

    // The plugin creates the table with its first segment: the view continues from that snapshot's
    // boundary.
    Table real = topicTables.resolve(topic, topicId(topic));
    assertThat(empty.schema().asStruct())
        .as("the staged table is the one created")
        .isEqualTo(real.schema().asStruct());
    assertThat(empty.spec().fields()).isEqualTo(real.spec().fields());
    commitTiered(real, topic, 0, 0, 25);
    produce(topic, 2, 40, 10);
    Table after = client.loadTable(id);
    assertRows(read(after), 2, 50);
    assertThat(client.listTables(Namespace.of("kafka"))).containsOnlyOnce(id);
    real.refresh();
    assertThat(after.currentSnapshot().parentId()).isEqualTo(real.currentSnapshot().snapshotId());
    assertThat(after.currentSnapshot().summary())
        .containsEntry(HeadView.SUMMARY_HEAD_OFFSETS, "0:25-49,1:0-49");
  }

  @Test
  void nonTopicTablesAndNamespacesPassThrough() {
    Namespace ns = Namespace.of("analytics");
    catalog.createNamespace(ns, Map.of("owner", "team-a"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table plain =
        catalog.buildTable(TableIdentifier.of(ns, "plain"), schema).withProperty("k", "v").create();

    assertThat(client.listNamespaces()).contains(ns);
    assertThat(client.loadNamespaceMetadata(ns)).containsEntry("owner", "team-a");
    assertThat(client.listTables(ns)).containsExactly(TableIdentifier.of(ns, "plain"));
    assertThat(client.tableExists(TableIdentifier.of(ns, "plain"))).isTrue();
    assertThat(client.tableExists(TableIdentifier.of(ns, "missing"))).isFalse();
    Table seen = client.loadTable(TableIdentifier.of(ns, "plain"));
    assertThat(seen.schema().asStruct()).isEqualTo(plain.schema().asStruct());
    assertThat(seen.properties()).containsEntry("k", "v");
    assertThat(seen.currentSnapshot()).isNull();
    // A metadata table: the server answers 404 for the name and the client builds it from the base
    // table.
    assertThat(client.loadTable(TableIdentifier.of("analytics", "plain", "snapshots")))
        .isInstanceOf(org.apache.iceberg.BaseMetadataTable.class);
    assertThat(
            ((org.apache.iceberg.HasTableOperations) seen)
                .operations()
                .current()
                .metadataFileLocation())
        .isEqualTo(
            ((org.apache.iceberg.HasTableOperations) plain)
                .operations()
                .current()
                .metadataFileLocation());
  }

  @Test
  void writesAreRefusedAndSayWhereToWrite() throws Exception {
    assertThatThrownBy(() -> client.createNamespace(Namespace.of("nope")))
        .hasMessageContaining("read-only")
        .hasMessageContaining("Write through the backing catalog 'floe'");
    assertThat(catalog.namespaceExists(Namespace.of("nope"))).isFalse();

    Namespace ns = Namespace.of("writes");
    catalog.createNamespace(ns);
    catalog.createTable(
        TableIdentifier.of(ns, "t"),
        new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    Table t = client.loadTable(TableIdentifier.of(ns, "t"));
    assertThatThrownBy(() -> t.updateProperties().set("a", "b").commit())
        .hasMessageContaining("read-only");
    assertThat(catalog.loadTable(TableIdentifier.of(ns, "t")).properties()).doesNotContainKey("a");

    HttpResponse<String> response =
        http("POST", "/v1/namespaces", "Bearer " + TOKEN, "{\"namespace\":[\"x\"]}");
    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.body()).contains("ReadOnlyViewException").contains("read-only");
    assertThat(
            http("DELETE", "/v1/namespaces/writes/tables/t", "Bearer " + TOKEN, null).statusCode())
        .isEqualTo(405);
    assertThat(catalog.tableExists(TableIdentifier.of(ns, "t"))).isTrue();
  }

  @Test
  void aMissingOrWrongTokenGets401() throws Exception {
    assertThat(http("GET", "/v1/config", null, null).statusCode()).isEqualTo(401);
    HttpResponse<String> wrong = http("GET", "/v1/namespaces", "Bearer wrong", null);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).contains("NotAuthorizedException").doesNotContain(TOKEN);
    assertThat(http("GET", "/v1/config", "Bearer " + TOKEN, null).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> restClient("wrong")).isInstanceOf(NotAuthorizedException.class);
  }

  @Test
  void queriesWhileProducingAndTieringAreContiguousAndSeeEveryAcknowledgedRecord()
      throws Exception {
    String topic = "busy";
    String topicId = createTopic(topic, 2);
    Table real = topicTables.resolve(topic, topicId);
    TableIdentifier id = TableIdentifier.of("kafka", topic);
    long[] acked = new long[] {-1, -1};
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();

    Thread producer =
        new Thread(
            () -> {
              try (KafkaProducer<byte[], byte[]> p =
                  new KafkaProducer<>(
                      Map.of("bootstrap.servers", kafka.bootstrapServers(), "acks", "all"),
                      new ByteArraySerializer(),
                      new ByteArraySerializer())) {
                for (int i = 0; !stop.get(); i++) {
                  for (int part = 0; part < 2; part++) {
                    ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(
                            topic,
                            part,
                            key(part, i).getBytes(StandardCharsets.UTF_8),
                            value(part, i).getBytes(StandardCharsets.UTF_8));
                    r.headers().add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                    long offset = p.send(r).get().offset();
                    synchronized (acked) {
                      acked[part] = Math.max(acked[part], offset);
                    }
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              }
            },
            "test-producer");
    Thread tierer =
        new Thread(
            () -> {
              long[] tiered = new long[2];
              try {
                while (!stop.get()) {
                  Thread.sleep(300);
                  for (int part = 0; part < 2; part++) {
                    long upTo;
                    synchronized (acked) {
                      upTo = acked[part] + 1;
                    }
                    if (upTo - tiered[part] >= 5) {
                      commitTiered(real, topic, part, tiered[part], upTo);
                      tiered[part] = upTo;
                    }
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              }
            },
            "test-tierer");
    producer.start();
    tierer.start();
    try {
      int queries = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      while (queries < 12 && System.nanoTime() < deadline && failure.get() == null) {
        long[] before;
        synchronized (acked) {
          before = acked.clone();
        }
        List<Record> rows = read(client.loadTable(id));
        Map<Integer, List<Long>> offsets = new TreeMap<>();
        for (Record row : rows) {
          offsets.computeIfAbsent(partition(row), x -> new ArrayList<>()).add(offset(row));
          assertThat(string((ByteBuffer) row.getField("value")))
              .isEqualTo(value(partition(row), offset(row)));
        }
        for (int part = 0; part < 2; part++) {
          List<Long> seen = offsets.getOrDefault(part, List.of()).stream().sorted().toList();
          List<Long> contiguous = Stream.iterate(0L, x -> x + 1).limit(seen.size()).toList();
          assertThat(seen)
              .as("query %d partition %d: contiguous from 0, no duplicates", queries, part)
              .isEqualTo(contiguous);
          assertThat((long) seen.size() - 1)
              .as("query %d partition %d sees what was acknowledged before it", queries, part)
              .isGreaterThanOrEqualTo(before[part]);
        }
        queries++;
      }
      stop.set(true);
      producer.join();
      tierer.join();
      assertThat(failure.get()).isNull();
      assertThat(queries).isGreaterThanOrEqualTo(3);
      real.refresh();
      assertThat(real.history().size())
          .as("segments were tiered while querying")
          .isGreaterThanOrEqualTo(2);
      System.out.printf(
          "busy topic: %d queries, %d tiered commits, last acknowledged offsets %d/%d%n",
          queries, real.history().size(), acked[0], acked[1]);
    } finally {
      stop.set(true);
      producer.join();
      tierer.join();
    }
  }

  @Test
  void servesAHeadOnAnS3Warehouse() throws Exception {
    Path s3dir = Files.createDirectories(dir.resolve("s3"));
    Map<String, String> catalogProps = TestCatalogs.properties(s3dir, TestCatalogs.Storage.S3);
    String topic = "on_s3";
    String topicId = createTopic(topic, 1);
    produce(topic, 1, 0, 30);
    Map<String, String> props =
        TestHeadViewConfig.properties(catalogProps, kafka.bootstrapServers());
    io.floe.testing.LocalS3.get().fileIoProperties().forEach((k, v) -> props.put("client." + k, v));
    try (JdbcCatalog s3Catalog = new JdbcCatalog()) {
      s3Catalog.initialize(TestCatalogs.CATALOG_NAME, catalogProps);
      Table real =
          new TopicTables(s3Catalog, TopicTableOptions.builder().build()).resolve(topic, topicId);
      commitTiered(real, topic, 0, 0, 10);
      try (HeadViewServer s = HeadViewServer.start(HeadViewConfig.of(props));
          RESTCatalog c = new RESTCatalog()) {
        c.initialize("s3view", Map.of("uri", s.uri()));
        Table view = c.loadTable(TableIdentifier.of("kafka", topic));
        assertThat(view.currentSnapshot().manifestListLocation())
            .startsWith("s3://")
            .contains("/floe-head/");
        assertRows(read(view), 1, 30);
      }
    }
  }

  @Test
  void aDeletedOrRecreatedTopicServesCommittedDataOnly() throws Exception {
    // A table whose topic does not exist in Kafka (deleted): committed data only, no error.
    Table ghost = topicTables.resolve("ghost", "AAAAAAAAAAAAAAAAAAAAAA");
    assertThat(read(client.loadTable(TableIdentifier.of("kafka", "ghost")))).isEmpty();

    // A table of an older topic with the same name (recreated under a new id): the new topic's
    // records stay out.
    createTopic("recreated", 1);
    produce("recreated", 1, 0, 3);
    topicTables.resolve("recreated", "BBBBBBBBBBBBBBBBBBBBBB");
    Table view = client.loadTable(TableIdentifier.of("kafka", "recreated"));
    assertThat(view.currentSnapshot()).isNull();
    assertThat(ghost.currentSnapshot()).isNull();
  }

  @Test
  void kafkaUnreachableFailsClearlyOrServesCommittedDataWhenConfigured() throws Exception {
    String topic = "offline";
    String topicId = createTopic(topic, 1);
    produce(topic, 1, 0, 10);
    Table real = topicTables.resolve(topic, topicId);
    commitTiered(real, topic, 0, 0, 4);
    TableIdentifier id = TableIdentifier.of("kafka", topic);
    for (String mode : List.of("fail", "committed")) {
      Map<String, String> props =
          TestHeadViewConfig.properties(
              TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL), "127.0.0.1:1");
      props.put("head.kafka-timeout-ms", "1500");
      props.put("head.on-kafka-error", mode);
      try (HeadViewServer offline = HeadViewServer.start(HeadViewConfig.of(props))) {
        if (mode.equals("fail")) {
          // Raw HTTP: Iceberg's client retries a 503 with backoff, which only makes the test slow.
          HttpResponse<String> r =
              HttpClient.newHttpClient()
                  .send(
                      HttpRequest.newBuilder(
                              URI.create(offline.uri() + "/v1/namespaces/kafka/tables/" + topic))
                          .build(),
                      HttpResponse.BodyHandlers.ofString());
          assertThat(r.statusCode()).isEqualTo(503);
          assertThat(r.body()).contains("Kafka is unavailable").contains(topic);
        } else {
          try (RESTCatalog c = new RESTCatalog()) {
            c.initialize("offline", Map.of("uri", offline.uri()));
            List<Record> rows = read(c.loadTable(id));
            assertThat(rows.stream().map(HeadViewServerTest::offset).sorted().toList())
                .containsExactly(0L, 1L, 2L, 3L);
          }
        }
      }
    }
  }

  @Test
  void aSupersededHeadIsDeletedOnceItsGraceTimeIsOver() throws Exception {
    String topic = "cleanup";
    String topicId = createTopic(topic, 1);
    produce(topic, 1, 0, 10);
    Table real = topicTables.resolve(topic, topicId);
    Map<String, String> props =
        TestHeadViewConfig.properties(
            TestCatalogs.properties(dir, TestCatalogs.Storage.LOCAL), kafka.bootstrapServers());
    props.put("head.cache-ttl-ms", "500");
    props.put("head.idle-ttl-ms", "600000");
    TableIdentifier id = TableIdentifier.of("kafka", topic);
    try (HeadViewServer s = HeadViewServer.start(HeadViewConfig.of(props));
        RESTCatalog c = new RESTCatalog()) {
      c.initialize("cleanup", Map.of("uri", s.uri()));
      Table first = c.loadTable(id);
      assertThat(read(first)).hasSize(10);
      Path firstHead = scratchOf(first);
      assertThat(filesUnder(firstHead)).isNotEmpty();

      // The real table passes part of the head: it is rebuilt, carrying the head file over with
      // its rows below 6 hidden by a delete file.
      commitTiered(real, topic, 0, 0, 6);
      Table second = c.loadTable(id);
      assertRows(read(second), 1, 10);
      Set<Path> carried = filesOf(second);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!carried.containsAll(filesUnder(firstHead)) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(filesUnder(firstHead))
          .as("what is left of the first head: the data file the second one carried over")
          .hasSize(1)
          .allMatch(carried::contains);
      assertThat(second.currentSnapshot().addedDeleteFiles(second.io())).hasSize(1);
      assertThat(filesUnder(scratchOf(second))).isNotEmpty();
      assertRows(read(second), 1, 10);
    }
    // Closing the service removes its heads too.
    assertThat(filesUnder(Path.of(URI.create(real.location() + "/floe-head")))).isEmpty();
  }

  /** The data and delete files a scan of the view reads. */
  private static Set<Path> filesOf(Table view) throws IOException {
    Set<Path> out = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = view.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        out.add(localPath(t.file().location()));
        t.deletes().forEach(d -> out.add(localPath(d.location())));
      }
    }
    return out;
  }

  private static Path localPath(String location) {
    return Path.of(URI.create(location.startsWith("file:/") ? location : "file:" + location));
  }

  private static Path scratchOf(Table view) {
    String manifestList = view.currentSnapshot().manifestListLocation();
    assertThat(manifestList).contains("/floe-head/");
    URI uri = URI.create(manifestList.startsWith("file:/") ? manifestList : "file:" + manifestList);
    return Path.of(uri).getParent().getParent();
  }

  /** Regular files under root; tolerates the service deleting files while it walks. */
  private static List<Path> filesUnder(Path root) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.exists(root)) {
      return out;
    }
    Files.walkFileTree(
        root,
        new java.nio.file.SimpleFileVisitor<>() {
          @Override
          public java.nio.file.FileVisitResult visitFile(
              Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
            if (attrs.isRegularFile() && !file.getFileName().toString().endsWith(".crc")) {
              out.add(file);
            }
            return java.nio.file.FileVisitResult.CONTINUE;
          }

          @Override
          public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
            return java.nio.file.FileVisitResult.CONTINUE; // deleted meanwhile
          }
        });
    return out;
  }

  // ---- helpers

  private static String createTopic(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    return topicId(topic);
  }

  /**
   * The topic's id, once the broker knows the topic (its metadata may lag the controller's create).
   */
  private static String topicId(String topic) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        return admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get()
            .get(topic)
            .topicId()
            .toString();
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause()
                instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50); // polls the broker's metadata; there is no event to wait on
      }
    }
  }

  private static String key(int p, long i) {
    return "k-" + p + "-" + i;
  }

  private static String value(int p, long i) {
    return "value " + p + "/" + i;
  }

  /**
   * count records per partition, numbered from {@code first}; acknowledged (acks=all) before
   * returning.
   */
  private static void produce(String topic, int partitions, int first, int count) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.bootstrapServers(), "acks", "all", "linger.ms", "5"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
      for (int i = first; i < first + count; i++) {
        for (int p = 0; p < partitions; p++) {
          ProducerRecord<byte[], byte[]> r =
              new ProducerRecord<>(
                  topic,
                  p,
                  key(p, i).getBytes(StandardCharsets.UTF_8),
                  value(p, i).getBytes(StandardCharsets.UTF_8));
          r.headers().add("n", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
          acks.add(producer.send(r));
        }
      }
      for (var a : acks) {
        a.get();
      }
    }
  }

  private static void sendTxn(
      KafkaProducer<byte[], byte[]> producer, String topic, String prefix, int n, boolean commit)
      throws Exception {
    producer.beginTransaction();
    for (int i = 0; i < n; i++) {
      producer.send(
          new ProducerRecord<>(
              topic, 0, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    producer.flush();
    if (commit) {
      producer.commitTransaction();
    } else {
      producer.abortTransaction();
    }
  }

  /** Simulates the plugin having tiered offsets [from, to) of a partition (see {@link Tierer}). */
  /**
   * A new topic of {@code partitions} partitions with {@code records} records in each, its head
   * loaded once and checked; returns its real table.
   */
  private static Table producedAndLoaded(String topic, int partitions, int records)
      throws Exception {
    Table real = topicTables.resolve(topic, createTopic(topic, partitions));
    produce(topic, partitions, 0, records);
    assertRows(read(client.loadTable(TableIdentifier.of("kafka", topic))), partitions, records);
    return real;
  }

  private static void commitTiered(Table table, String topic, int partition, long from, long to)
      throws IOException {
    try (Tierer tierer = new Tierer(kafka.bootstrapServers(), topic)) {
      tierer.commit(table, partition, from, to);
    }
  }

  /** The row counts of the position delete files the view's current snapshot adds. */
  private static List<Long> deleteRowCounts(Table view) {
    List<Long> out = new ArrayList<>();
    for (DeleteFile f : view.currentSnapshot().addedDeleteFiles(view.io())) {
      out.add(f.recordCount());
    }
    return out;
  }

  private static List<Record> read(Table table) throws IOException {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.copy()));
    }
    return out;
  }

  private static long offset(Record row) {
    return (Long) ((Record) row.getField("kafka")).getField("offset");
  }

  private static int partition(Record row) {
    return (Integer) ((Record) row.getField("kafka")).getField("partition");
  }

  /**
   * Exactly offsets 0..n-1 in every partition, once each, with the produced keys, values and
   * headers.
   */
  private static void assertRows(List<Record> rows, int partitions, int n) {
    Map<Integer, List<Long>> offsets = new TreeMap<>();
    for (Record row : rows) {
      int p = partition(row);
      long o = offset(row);
      offsets.computeIfAbsent(p, x -> new ArrayList<>()).add(o);
      assertThat(string((ByteBuffer) row.getField("key"))).isEqualTo(key(p, o));
      assertThat(string((ByteBuffer) row.getField("value"))).isEqualTo(value(p, o));
      @SuppressWarnings("unchecked")
      List<Record> headers = (List<Record>) row.getField("headers");
      assertThat(headers).hasSize(1);
      assertThat(headers.get(0).getField("key")).isEqualTo("n");
      assertThat(string((ByteBuffer) headers.get(0).getField("value"))).isEqualTo(Long.toString(o));
    }
    List<Long> expected = Stream.iterate(0L, x -> x + 1).limit(n).toList();
    assertThat(offsets.keySet()).hasSize(partitions);
    offsets.forEach(
        (p, list) ->
            assertThat(list.stream().sorted().collect(Collectors.toList()))
                .as("offsets of partition %d", p)
                .isEqualTo(expected));
  }

  private static String string(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    ByteBuffer d = b.duplicate();
    byte[] out = new byte[d.remaining()];
    d.get(out);
    return new String(out, StandardCharsets.UTF_8);
  }

  private static HttpResponse<String> http(String method, String path, String auth, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.uri() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    if (auth != null) {
      b.header("Authorization", auth);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
