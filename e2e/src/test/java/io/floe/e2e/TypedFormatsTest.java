package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.e2e.ReadBack.Rec;
import io.floe.e2e.TypedPayloads.Kind;
import io.floe.e2e.TypedPayloads.Pair;
import io.floe.e2e.TypedPayloads.Payload;
import io.floe.e2e.TypedRows.Row;
import io.floe.testing.LocalRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed topics in the formats {@link TypedTopicTest} does not cover, each with a reference twin (no
 * tiering) that gets exactly the same records: Protobuf values with JSON Schema keys, JSON Schema
 * values with Avro keys, all in the registry's wire format, from plain and transactional producers
 * (compressed; committed and aborted transactions), with headers, tombstones, null keys, the
 * non-canonical forms of each format, bad bytes, an unknown schema id and invalid payloads.
 *
 * <p>Three phases, each tiered before the next: the registry up (version 1 of each value schema);
 * the registry stopped (records of version 2, which no table has seen, keep their bytes with the
 * reason, and nothing is lost); the registry started again on the same port with the same schemas
 * registered in the same order, so the ids match (Apicurio keeps them in memory only), and version
 * 2 is typed in new segments, evolving the tables. After each phase consumers at read_uncommitted
 * and read_committed read the typed and the reference topics back identically, and the tables hold
 * each record's status, reason, original bytes and typed fields; at the end Spark reads the typed
 * columns, equal to the decoded records.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypedFormatsTest {
  private static final List<Kind> SPECIAL =
      List.of(
          Kind.VALUE_OUT_OF_ORDER,
          Kind.VALUE_NON_CANONICAL,
          Kind.VALUE_OTHER_FORM,
          Kind.KEY_NON_CANONICAL,
          Kind.NOT_WIRE,
          Kind.UNKNOWN_ID,
          Kind.INVALID_PAYLOAD,
          Kind.TOMBSTONE,
          Kind.NULL_KEY);

  @TempDir static Path dir;

  private final Pair protobuf = TypedPayloads.protobufValues("formats.pb", "reference.pb");
  private final Pair json = TypedPayloads.jsonValues("formats.json", "reference.json");
  private final List<Pair> pairs = List.of(protobuf, json);
  private final Map<String, NavigableMap<Long, Sent>> sent = new HashMap<>();
  private final Random random = new Random(20261204L);
  private LocalRegistry registry;
  private FloeCluster cluster;
  private Admin admin;
  private TypedRows rows;
  private int n;
  private long clock = System.currentTimeMillis() - Duration.ofHours(1).toMillis();

  /** A record as produced to a pair (at the same offset in both topics). */
  record Sent(
      Payload key, Payload value, long timestamp, List<ReadBack.Hdr> headers, boolean aborted) {}

  private record Pending(
      Pair pair,
      Future<RecordMetadata> typed,
      Future<RecordMetadata> reference,
      Payload key,
      Payload value,
      long timestamp,
      List<Header> headers,
      boolean aborted) {}

  @BeforeAll
  void start() throws Exception {
    // The registry (a child JVM) starts while the broker does.
    int port = freePort();
    CompletableFuture<LocalRegistry> starting =
        CompletableFuture.supplyAsync(() -> LocalRegistry.start(port));
    Map<String, String> rsm = new HashMap<>();
    rsm.put("registry.url", LocalRegistry.url(port));
    rsm.put("registry.request.timeout.ms", "2000");
    rsm.put("registry.retries", "1");
    rsm.put("registry.retry.backoff.ms", "100");
    rsm.put("registry.unavailable.cooldown.ms", "200");
    rsm.put("registry.latest.cache.ms", "200");
    rsm.put("types.rules", "pb,js");
    rsm.put("types.rule.pb.topics", "formats\\.pb");
    rsm.put("types.rule.pb.value.format", "protobuf");
    rsm.put("types.rule.pb.key.format", "json-schema");
    rsm.put("types.rule.js.topics", "formats\\.json");
    rsm.put("types.rule.js.value.format", "json-schema");
    rsm.put("types.rule.js.key.format", "avro");
    try {
      cluster = FloeCluster.start(FloeCluster.s3CatalogProperties(dir), rsm);
    } finally {
      registry = starting.join();
    }
    pairs.forEach(p -> p.register(registry));
    admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    List<NewTopic> topics = new ArrayList<>();
    for (Pair pair : pairs) {
      topics.add(
          new NewTopic(pair.typed, 1, (short) 1)
              .configs(
                  Map.of(
                      "remote.storage.enable", "true",
                      "segment.bytes", "1048576",
                      "local.retention.ms", "1000",
                      "retention.ms", "-1")));
      topics.add(new NewTopic(pair.reference, 1, (short) 1).configs(Map.of("retention.ms", "-1")));
      sent.put(pair.typed, new TreeMap<>());
    }
    admin.createTopics(topics).all().get();
    rows = new TypedRows(cluster, admin, dir);
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
  void typedTopicsReadBackLikeTheirReferencesThroughARegistryOutage() throws Exception {
    long started = System.nanoTime();
    Map<Pair, Long> first = produce(Kind.V1, true);
    awaitTiered(first);
    assertReadBackAlike();
    assertTables(first);

    int port = registry.port();
    List<Integer> ids = ids();
    registry.close();
    long undecodableBefore = TieredTopic.floeMetric("UndecodablePayloads");
    Map<Pair, Long> outage = produce(Kind.V2, false);
    awaitTiered(outage);
    assertThat(TieredTopic.floeMetric("UndecodablePayloads")).isGreaterThan(undecodableBefore);
    assertReadBackAlike();
    assertTables(outage);
    assertThat(TieredTopic.floeMetric("CopyErrors")).as("copies during the outage").isZero();
    for (Pair pair : pairs) {
      assertThat(rows.hasColumn(pair, "value.coupon"))
          .as("%s not evolved by a schema the registry could not give", pair.typed)
          .isFalse();
    }

    long restart = System.nanoTime();
    registry = LocalRegistry.start(port);
    System.out.printf(
        "TypedFormatsTest: registry started again in %d ms%n",
        (System.nanoTime() - restart) / 1_000_000);
    pairs.forEach(p -> p.register(registry));
    assertThat(ids()).as("the same ids after registering again in the same order").isEqualTo(ids);
    Map<Pair, Long> back = produce(Kind.V2, true);
    awaitTiered(back);
    assertReadBackAlike();
    assertTables(back);
    for (Pair pair : pairs) {
      assertThat(rows.hasColumn(pair, "value.coupon")).as("%s evolved", pair.typed).isTrue();
    }
    assertThat(TieredTopic.floeMetric("CopyErrors")).isZero();
    assertThat(TieredTopic.floeMetric("FetchErrors")).isZero();
    assertThat(TieredTopic.floeMetric("InexactPayloads")).isPositive();
    System.out.printf(
        "TypedFormatsTest: three phases in %d ms%n", (System.nanoTime() - started) / 1_000_000);

    Map<Pair, NavigableMap<Long, Sent>> expected = new LinkedHashMap<>();
    pairs.forEach(p -> expected.put(p, expectedRows(p, back.get(p))));
    rows.assertSparkReadsTypedColumns(expected);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private List<Integer> ids() {
    List<Integer> ids = new ArrayList<>();
    pairs.forEach(p -> ids.addAll(List.of(p.v1, p.v2, p.keyId)));
    return ids;
  }

  /**
   * One phase: values of {@code current} (and version 1) from a plain producer and from
   * transactions (the second of three aborted), with the special kinds. Returns each pair's end
   * offset. No filler is needed to roll the last segment: the records' timestamps are an hour old,
   * so Kafka's local retention (1 s) rolls the active segment, and it tiers.
   */
  private Map<Pair, Long> produce(Kind current, boolean registryUp) throws Exception {
    Map<Pair, Long> end = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> plain =
            producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd"));
        KafkaProducer<byte[], byte[]> txn =
            producer(
                Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "gzip",
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "typed-formats-" + current + "-" + registryUp))) {
      txn.initTransactions();
      for (int round = 0; round < 3; round++) {
        List<Pending> pending = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
          pending.addAll(send(plain, i % 4 == 3 ? Kind.V1 : current, false, registryUp));
        }
        if (round == 0) {
          for (Kind kind : SPECIAL) {
            pending.addAll(send(plain, kind, false, registryUp));
          }
        }
        plain.flush();
        txn.beginTransaction();
        boolean abort = round == 1;
        for (int i = 0; i < 8; i++) {
          Kind kind = i == 5 ? Kind.VALUE_NON_CANONICAL : i % 2 == 0 ? current : Kind.V1;
          pending.addAll(send(txn, kind, abort, registryUp));
        }
        txn.flush(); // else an abort may drop batches not sent yet
        if (abort) {
          txn.abortTransaction();
        } else {
          txn.commitTransaction();
        }
        resolve(pending);
        awaitStable();
      }
      for (Pair pair : pairs) {
        end.put(pair, endOffset(pair.typed, IsolationLevel.READ_UNCOMMITTED));
        assertThat(endOffset(pair.reference, IsolationLevel.READ_UNCOMMITTED))
            .isEqualTo(end.get(pair));
      }
    }
    return end;
  }

  /** Record {@code n} of {@code kind} to both topics of each pair, with the same fields. */
  private List<Pending> send(
      KafkaProducer<byte[], byte[]> producer, Kind kind, boolean aborted, boolean registryUp) {
    int number = n++;
    long timestamp = clock++;
    List<Header> headers = new ArrayList<>();
    if (number % 3 == 0) {
      headers.add(new RecordHeader("trace", ("t-" + number).getBytes(StandardCharsets.UTF_8)));
      headers.add(new RecordHeader("dup", "a".getBytes(StandardCharsets.UTF_8)));
      headers.add(new RecordHeader("nothing", null));
      headers.add(new RecordHeader("dup", "b".getBytes(StandardCharsets.UTF_8)));
    }
    if (number % 5 == 0) {
      byte[] binary = new byte[1 + random.nextInt(64)];
      random.nextBytes(binary);
      headers.add(new RecordHeader("", binary));
    }
    List<Pending> out = new ArrayList<>();
    for (Pair pair : pairs) {
      Payload[] record = pair.record(kind, number);
      Payload value = record[1];
      if (!registryUp && kind == Kind.V2) {
        value =
            new Payload(
                value.bytes(),
                "undecodable",
                null,
                "schema id " + pair.v2 + " could not be looked up");
      }
      out.add(
          new Pending(
              pair,
              producer.send(
                  new ProducerRecord<>(
                      pair.typed, 0, timestamp, record[0].bytes(), value.bytes(), headers)),
              producer.send(
                  new ProducerRecord<>(
                      pair.reference, 0, timestamp, record[0].bytes(), value.bytes(), headers)),
              record[0],
              value,
              timestamp,
              headers,
              aborted));
    }
    return out;
  }

  /** Each record at the same offset in both topics of its pair, remembered by that offset. */
  private void resolve(List<Pending> pending) throws Exception {
    for (Pending p : pending) {
      long offset = p.typed().get().offset();
      assertThat(p.reference().get().offset()).as("offset in the reference").isEqualTo(offset);
      sent.get(p.pair().typed)
          .put(
              offset,
              new Sent(
                  p.key(),
                  p.value(),
                  p.timestamp(),
                  p.headers().stream()
                      .map(h -> new ReadBack.Hdr(h.key(), ReadBack.buf(h.value())))
                      .toList(),
                  p.aborted()));
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

  /** Transaction markers written: each partition's last stable offset is its high watermark. */
  private void awaitStable() {
    await("transaction markers written")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              for (Pair pair : pairs) {
                for (String topic : List.of(pair.typed, pair.reference)) {
                  if (endOffset(topic, IsolationLevel.READ_COMMITTED)
                      != endOffset(topic, IsolationLevel.READ_UNCOMMITTED)) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  private long endOffset(String topic, IsolationLevel isolation) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    return admin
        .listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
        .all()
        .get()
        .get(tp)
        .offset();
  }

  /** Everything below {@code end} tiered and gone from the typed topics' local logs. */
  private void awaitTiered(Map<Pair, Long> end) {
    await("the phase tiered and gone from the local logs")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              for (Pair pair : pairs) {
                TopicPartition tp = new TopicPartition(pair.typed, 0);
                long local =
                    admin
                        .listOffsets(Map.of(tp, OffsetSpec.earliestLocal()))
                        .all()
                        .get()
                        .get(tp)
                        .offset();
                if (local < end.get(pair)) {
                  return false;
                }
              }
              return true;
            });
  }

  /**
   * At both isolation levels the typed topic reads back as its reference does (offsets, keys,
   * values, headers, timestamps), and the reference holds what was produced.
   */
  private void assertReadBackAlike() {
    for (Pair pair : pairs) {
      for (IsolationLevel isolation : IsolationLevel.values()) {
        List<Rec> reference =
            ReadBack.readAll(cluster.bootstrapServers(), pair.reference, isolation);
        List<Rec> typed = ReadBack.readAll(cluster.bootstrapServers(), pair.typed, isolation);
        ReadBack.assertSame(pair.typed + " (" + isolation + ")", typed, reference);
        assertReferenceHoldsWhatWasSent(pair, isolation, reference);
      }
    }
  }

  private void assertReferenceHoldsWhatWasSent(
      Pair pair, IsolationLevel isolation, List<Rec> reference) {
    List<Long> expected = new ArrayList<>();
    sent.get(pair.typed)
        .forEach(
            (offset, s) -> {
              if (isolation == IsolationLevel.READ_UNCOMMITTED || !s.aborted()) {
                expected.add(offset);
              }
            });
    assertThat(reference.stream().map(Rec::offset).toList())
        .as("offsets of %s (%s)", pair.reference, isolation)
        .isEqualTo(expected);
    for (Rec r : reference) {
      Sent s = sent.get(pair.typed).get(r.offset());
      assertThat(r.key()).isEqualTo(ReadBack.buf(s.key().bytes()));
      assertThat(r.value()).isEqualTo(ReadBack.buf(s.value().bytes()));
      assertThat(r.timestamp()).isEqualTo(s.timestamp());
      assertThat(r.headers()).isEqualTo(s.headers());
    }
  }

  /** The committed records below each pair's {@code end}: what its table must show. */
  private NavigableMap<Long, Sent> expectedRows(Pair pair, long end) {
    NavigableMap<Long, Sent> out = new TreeMap<>();
    sent.get(pair.typed)
        .headMap(end, false)
        .forEach(
            (offset, s) -> {
              if (!s.aborted()) {
                out.put(offset, s);
              }
            });
    return out;
  }

  private void assertTables(Map<Pair, Long> end) throws Exception {
    for (Pair pair : pairs) {
      NavigableMap<Long, Row> actual = rows.read(pair, end.get(pair));
      TypedRows.assertRows(pair.typed + " table", actual, expectedRows(pair, end.get(pair)));
    }
  }
}
