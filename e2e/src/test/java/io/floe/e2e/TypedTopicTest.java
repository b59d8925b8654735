package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.floe.headview.HeadViewConfig;
import io.floe.headview.HeadViewServer;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.TypedColumns;
import io.floe.testing.LocalRegistry;
import io.floe.testing.SparkSqlRunner;
import io.floe.testing.TestCatalogs;
import io.floe.tier.TopicTables;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic typed by a real schema registry (Apicurio): Avro values in the wire format, written with
 * two schema versions (the second adds a field), and JSON keys typed by the latest schema of their
 * subject; among them records Floe cannot type exactly (a value that is not the wire format, an
 * unknown schema id, a non-minimal varint). Once tiered: a consumer reads back every record exactly
 * from the tier, the table has typed columns (evolved by the second version) with each record's
 * status, and Spark queries the typed columns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TypedTopicTest {
  private static final String TOPIC = "typed.orders";
  private static final Schema V1 =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
                  + "{\"name\":\"id\",\"type\":\"long\"},"
                  + "{\"name\":\"customer\",\"type\":\"string\"},"
                  + "{\"name\":\"amount\",\"type\":\"double\"},"
                  + "{\"name\":\"note\",\"type\":\"string\"}]}");
  private static final Schema V2 =
      new Schema.Parser()
          .parse(
              "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
                  + "{\"name\":\"id\",\"type\":\"long\"},"
                  + "{\"name\":\"customer\",\"type\":\"string\"},"
                  + "{\"name\":\"amount\",\"type\":\"double\"},"
                  + "{\"name\":\"note\",\"type\":\"string\"},"
                  + "{\"name\":\"coupon\",\"type\":[\"null\",\"string\"],\"default\":null}]}");
  private static final String KEY_SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\"},"
          + "\"id\":{\"type\":\"integer\"}}}";
  private static final int RECORDS_PER_VERSION = 2500;

  @TempDir static Path dir;

  private LocalRegistry registry;
  private FloeCluster cluster;
  private Admin admin;
  private final List<byte[][]> produced = new ArrayList<>();
  private int v1;

  @BeforeAll
  void start() throws Exception {
    registry = LocalRegistry.start();
    v1 = registry.register(TOPIC + "-value", "AVRO", V1.toString());
    registry.register(TOPIC + "-key", "JSON", KEY_SCHEMA);
    cluster =
        FloeCluster.start(
            FloeCluster.s3CatalogProperties(dir),
            Map.of(
                "registry.url", registry.url(),
                "types.rules", "orders",
                "types.rule.orders.topics", "typed\\..*",
                "types.rule.orders.value.format", "avro",
                "types.rule.orders.key.format", "json-schema",
                "types.rule.orders.key.schema", "latest"));
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
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
        .get();
  }

  @AfterAll
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (registry != null) {
      registry.close();
    }
  }

  @Test
  @Order(1)
  void typedColumnsStatusesEvolutionAndExactReadBackFromTheTier() throws Exception {
    int v2 = registry.register(TOPIC + "-value", "AVRO", V2.toString());
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      for (int i = 0; i < RECORDS_PER_VERSION; i++) {
        send(producer, key(i), wire(v1, avro(V1, order(V1, i))));
      }
      send(producer, key(-1), "{\"id\":1}".getBytes(StandardCharsets.UTF_8));
      send(producer, key(-2), wire(987_654, avro(V1, order(V1, 1))));
      send(
          producer, key(-3), TypedPayloads.nonMinimalFirstVarint(wire(v1, avro(V1, order(V1, 3)))));
      send(producer, null, null);
      for (int i = 0; i < RECORDS_PER_VERSION; i++) {
        GenericRecord order = order(V2, RECORDS_PER_VERSION + i);
        order.put("coupon", i % 2 == 0 ? "SAVE" + i : null);
        send(producer, key(RECORDS_PER_VERSION + i), wire(v2, avro(V2, order)));
      }
      // A second segment's worth, so the one holding the records above rolls and tiers.
      for (int i = 0; i < RECORDS_PER_VERSION; i++) {
        send(producer, key(0), wire(v1, avro(V1, order(V1, 0))));
      }
      producer.flush();
    }
    long typedEnd = 2L * RECORDS_PER_VERSION + 4;
    await("the typed records tiered and gone from the local log")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> offset(OffsetSpec.earliestLocal()) >= typedEnd);

    List<ConsumerRecord<byte[], byte[]>> read = readFromStart((int) typedEnd);
    for (int i = 0; i < typedEnd; i++) {
      assertThat(read.get(i).key()).as("key at %d", i).isEqualTo(produced.get(i)[0]);
      assertThat(read.get(i).value()).as("value at %d", i).isEqualTo(produced.get(i)[1]);
    }

    try (JdbcCatalog catalog = cluster.catalog()) {
      Table table =
          new TopicTables(catalog, TopicTableOptions.builder().build()).find(TOPIC, topicId());
      assertThat(table.schema().findField("value.coupon")).as("evolved by version 2").isNotNull();
      assertThat(table.schema().findField("key.region")).isNotNull();
      Map<Long, Record> rows = rows(table);
      assertThat(rows.get(0L).getField(TypedColumns.status("value"))).isEqualTo("ok");
      assertThat(rows.get(0L).getField(TypedColumns.status("key"))).isEqualTo("ok");
      assertThat(((Record) rows.get(7L).getField("value")).getField("customer"))
          .isEqualTo("customer-7");
      assertThat(((Record) rows.get(7L).getField("key")).getField("region")).isEqualTo("eu");
      long bad = RECORDS_PER_VERSION;
      assertThat(rows.get(bad).getField(TypedColumns.status("value"))).isEqualTo("undecodable");
      assertThat((String) rows.get(bad + 1).getField(TypedColumns.reason("value")))
          .contains("987654");
      assertThat(rows.get(bad + 2).getField(TypedColumns.status("value"))).isEqualTo("inexact");
      assertThat(rows.get(bad + 2).getField(TypedColumns.raw("value")))
          .isEqualTo(ByteBuffer.wrap(produced.get((int) bad + 2)[1]));
      assertThat(rows.get(bad + 3).getField(TypedColumns.status("value"))).isNull();
      Record withCoupon = (Record) rows.get(bad + 4).getField("value");
      assertThat(withCoupon.getField("coupon")).isEqualTo("SAVE0");

      String from = TestCatalogs.CATALOG_NAME + "." + table.name().replaceFirst("^[^.]+\\.", "");
      List<SparkSqlRunner.Result> results =
          SparkSqlRunner.run(
              dir.resolve("spark"),
              SparkSqlRunner.icebergCatalog(TestCatalogs.CATALOG_NAME, cluster.catalogProperties),
              List.of(
                  "SELECT value_status AS status, count(*) AS n FROM "
                      + from
                      + " WHERE kafka.offset < "
                      + typedEnd
                      + " GROUP BY value_status ORDER BY value_status",
                  "SELECT value.customer AS customer, value.coupon AS coupon, key.region AS region"
                      + " FROM "
                      + from
                      + " WHERE kafka.offset = "
                      + (bad + 4)),
              Duration.ofMinutes(5));
      Map<String, Long> statuses = new HashMap<>();
      for (JsonNode row : results.get(0).requireOk().rows()) {
        statuses.put(
            row.get("status").isNull() ? "null" : row.get("status").asText(),
            row.get("n").asLong());
      }
      assertThat(statuses)
          .containsEntry("ok", 2L * RECORDS_PER_VERSION)
          .containsEntry("inexact", 1L)
          .containsEntry("undecodable", 2L)
          .containsEntry("null", 1L);
      JsonNode typed = results.get(1).requireOk().rows().get(0);
      assertThat(typed.get("customer").asText()).isEqualTo("customer-" + RECORDS_PER_VERSION);
      assertThat(typed.get("coupon").asText()).isEqualTo("SAVE0");
      assertThat(typed.get("region").asText()).isEqualTo("eu");
    }
  }

  /**
   * Records of a third schema version that no copy has met yet (not tiered when the head view loads
   * the table): the head view types them too, evolving its own view of the table (that it never
   * changes the real table is TypedCopyTest's).
   */
  @Test
  @Order(2)
  void theHeadViewTypesRecordsOfASchemaNoCopyHasMetYet() throws Exception {
    Schema v3 =
        new Schema.Parser()
            .parse(
                V2.toString()
                    .replace(
                        "]}",
                        ",{\"name\":\"channel\",\"type\":[\"null\",\"string\"],\"default\":null}]}"));
    int v3id = registry.register(TOPIC + "-value", "AVRO", v3.toString());
    // Keep the new records in the local log: an active segment past local retention is rolled and
    // tiered, and these must stay in the head.
    admin
        .incrementalAlterConfigs(
            Map.of(
                new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("local.retention.ms", "-2"), AlterConfigOp.OpType.SET))))
        .all()
        .get();
    long from = offset(OffsetSpec.latest());
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      for (int i = 0; i < 10; i++) {
        GenericRecord order = order(v3, 90_000 + i);
        order.put("channel", "web");
        send(producer, key(i), wire(v3id, avro(v3, order)));
      }
      producer.flush();
    }
    Map<String, String> props = new HashMap<>();
    cluster.catalogProperties.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("catalog.name", TestCatalogs.CATALOG_NAME);
    props.put("kafka.bootstrap.servers", cluster.bootstrapServers());
    props.put("listen.port", "0");
    props.put("registry.url", registry.url());
    Map<String, String> clientProps = new HashMap<>(cluster.catalogProperties);
    clientProps
        .keySet()
        .removeIf(k -> k.equals("type") || k.equals("uri") || k.startsWith("jdbc."));
    try (HeadViewServer headView = HeadViewServer.start(HeadViewConfig.of(props));
        RESTCatalog client = new RESTCatalog()) {
      clientProps.put("uri", headView.uri());
      client.initialize("headview", clientProps);
      Table view = client.loadTable(TableIdentifier.of("kafka", "typed_orders"));
      assertThat(offset(OffsetSpec.earliestLocal()))
          .as("the new records are in the head, not tiered")
          .isLessThanOrEqualTo(from);
      Map<Long, Record> rows = rows(view);
      for (long offset = from; offset < from + 10; offset++) {
        Record row = rows.get(offset);
        assertThat(row).as("head row %d", offset).isNotNull();
        assertThat(row.getField(TypedColumns.status("value"))).isEqualTo("ok");
        assertThat(((Record) row.getField("value")).getField("channel")).isEqualTo("web");
      }
    }
  }

  private KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return new KafkaProducer<>(props);
  }

  private void send(KafkaProducer<byte[], byte[]> producer, byte[] key, byte[] value) {
    produced.add(new byte[][] {key, value});
    producer.send(new ProducerRecord<>(TOPIC, 0, key, value));
  }

  /** JSON keys as JavaScript's JSON.stringify writes them, properties in the schema's order. */
  private static byte[] key(int id) {
    return ("{\"region\":\"eu\",\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8);
  }

  private static GenericRecord order(Schema schema, long id) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", id);
    r.put("customer", "customer-" + id);
    r.put("amount", id * 1.25);
    r.put("note", "n".repeat(300));
    return r;
  }

  private static byte[] wire(int id, byte[] payload) {
    return TypedPayloads.wire(id, false, payload);
  }

  private static byte[] avro(Schema schema, GenericRecord record) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private long offset(OffsetSpec spec) throws Exception {
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    ListOffsetsResult result = admin.listOffsets(Map.of(tp, spec));
    return result.partitionResult(tp).get().offset();
  }

  private String topicId() throws Exception {
    return admin
        .describeTopics(List.of(TOPIC))
        .allTopicNames()
        .get()
        .get(TOPIC)
        .topicId()
        .toString();
  }

  private List<ConsumerRecord<byte[], byte[]>> readFromStart(int count) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      TopicPartition tp = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(tp));
      consumer.seek(tp, 0);
      await("the typed records read back from the tier")
          .atMost(Duration.ofMinutes(1))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
              });
    }
    return out;
  }

  private static Map<Long, Record> rows(Table table) throws Exception {
    Map<Long, Record> out = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        out.put((Long) ((Record) row.getField("kafka")).getField("offset"), row.copy());
      }
    }
    return out;
  }
}
