package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableOptions;
import io.floe.tier.TopicTables;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import javax.management.ObjectName;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A one-partition tiered topic on a {@link FloeCluster} for the fault, restart and retention tests:
 * produces incompressible ~10 KiB records (about 100 per 1 MiB segment), tells how far Kafka has
 * tiered, and reads back what Kafka serves and what the Iceberg table holds.
 */
final class TieredTopic {
  static final Duration AWAIT = Duration.ofMinutes(3);
  private static final int VALUE_BYTES = 10 * 1024;

  /** One record: offset, key and value (byte arrays compared by content). */
  record Row(long offset, ByteBuffer key, ByteBuffer value) {}

  /** A copy snapshot of the table: the segment's offsets and segment id, from its summary. */
  record CopySnapshot(
      long snapshotId,
      long start,
      long end,
      String segmentId,
      long addedRecords,
      int overlappedFiles) {}

  final String name;
  final TopicPartition tp;
  private final FloeCluster cluster;
  private final Admin admin;
  private final Random random;
  private String topicId;

  private TieredTopic(FloeCluster cluster, Admin admin, String name, Random random) {
    this.cluster = cluster;
    this.admin = admin;
    this.name = name;
    this.tp = new TopicPartition(name, 0);
    this.random = random;
  }

  /**
   * Creates the topic: 1 MiB segments, local copies deleted a second after tiering, no retention.
   */
  static TieredTopic create(FloeCluster cluster, Admin admin, String name) throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic(name, 1, (short) 1)
                    .configs(
                        Map.of(
                            "remote.storage.enable", "true",
                            "segment.bytes", "1048576",
                            "local.retention.ms", "1000",
                            "retention.ms", "-1"))))
        .all()
        .get();
    return new TieredTopic(cluster, admin, name, new Random(name.hashCode()));
  }

  /** The same topic seen through another admin client (one made after a broker restart). */
  TieredTopic withAdmin(Admin other) throws Exception {
    TieredTopic copy = new TieredTopic(cluster, other, name, random);
    copy.topicId = topicId();
    return copy;
  }

  String topicId() throws Exception {
    if (topicId == null) {
      // Right after the create, the broker's metadata may not have the topic yet.
      topicId =
          await()
              .atMost(AWAIT)
              .ignoreExceptionsMatching(
                  e -> e.getCause() instanceof UnknownTopicOrPartitionException)
              .until(
                  () ->
                      admin
                          .describeTopics(List.of(name))
                          .allTopicNames()
                          .get()
                          .get(name)
                          .topicId()
                          .toString(),
                  java.util.Objects::nonNull);
    }
    return topicId;
  }

  /**
   * Produces {@code records} records, then enough more that the segment holding the last of them
   * rolls: once Kafka has tiered through the returned offset, all of them are in remote storage.
   */
  long produceAndRoll(int records) {
    long last = produce(records);
    produce(110);
    return last;
  }

  /** Produces records and returns the offset of the last. */
  long produce(int records) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    long last = -1;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (int i = 0; i < records; i++) {
        byte[] value = new byte[VALUE_BYTES];
        random.nextBytes(value);
        byte[] key = ("key-" + random.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(name, 0, key, value)));
      }
      for (Future<RecordMetadata> f : sent) {
        last = Math.max(last, f.get().offset());
      }
    } catch (Exception e) {
      throw new IllegalStateException("Producing to " + name + " failed", e);
    }
    return last;
  }

  long offset(OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(tp, spec)).all().get().get(tp).offset();
  }

  /** The last offset Kafka has tiered (-1: none yet). */
  long latestTiered() throws Exception {
    return offset(OffsetSpec.latestTiered());
  }

  void awaitTieredThrough(long offset) {
    await("Kafka tiers " + name + " through offset " + offset)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(() -> latestTiered() >= offset);
  }

  /**
   * Awaits Kafka tiering all it has (an idle active segment is rolled by local retention): no copy
   * in flight.
   */
  long awaitAllTiered() {
    long[] tiered = {-1};
    await("Kafka tiers all of " + name)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              tiered[0] = latestTiered();
              return tiered[0] == offset(OffsetSpec.latest()) - 1;
            });
    return tiered[0];
  }

  /**
   * Awaits Kafka deleting the local copies through {@code offset}: reads of those offsets go to the
   * remote tier.
   */
  void awaitLocalLogStartPast(long offset) {
    await("local log of " + name + " starts past " + offset)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .until(() -> offset(OffsetSpec.earliestLocal()) > offset);
  }

  /**
   * Records of offsets [from, to] as Kafka serves them (reads of tiered offsets go through the
   * plugin).
   */
  List<Row> consume(long from, long to) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<Row> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, from);
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (consumer.position(tp) <= to) {
        assertThat(System.nanoTime())
            .as("reading %s offsets %d..%d within 90 s", name, from, to)
            .isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.offset() <= to) {
            out.add(new Row(r.offset(), ByteBuffer.wrap(r.key()), ByteBuffer.wrap(r.value())));
          }
        }
      }
    }
    return out;
  }

  /** The topic's table, or null when none was created yet. */
  Table table(Catalog catalog) throws Exception {
    return new TopicTables(catalog, TopicTableOptions.builder().build()).find(name, topicId());
  }

  /** Rows of the table's current snapshot, by offset (duplicates kept). */
  static List<Row> rows(Table table) throws Exception {
    table.refresh();
    List<Row> out = new ArrayList<>();
    if (table.currentSnapshot() == null) {
      return out;
    }
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record row : records) {
        Record kafka = (Record) row.getField("kafka");
        out.add(
            new Row(
                (Long) kafka.getField("offset"),
                (ByteBuffer) row.getField("key"),
                (ByteBuffer) row.getField("value")));
      }
    }
    out.sort(Comparator.comparingLong(Row::offset));
    return out;
  }

  /** The copy snapshots in the current snapshot's history, in commit order. */
  static List<CopySnapshot> copySnapshots(Table table) {
    table.refresh();
    List<CopySnapshot> out = new ArrayList<>();
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      Map<String, String> summary = s.summary();
      if (summary.containsKey(SegmentSummary.START_OFFSET)) {
        out.add(
            0,
            new CopySnapshot(
                s.snapshotId(),
                Long.parseLong(summary.get(SegmentSummary.START_OFFSET)),
                Long.parseLong(summary.get(SegmentSummary.END_OFFSET)),
                summary.get(SegmentSummary.SEGMENT_ID),
                Long.parseLong(summary.getOrDefault("added-records", "0")),
                Integer.parseInt(summary.getOrDefault(SegmentSummary.OVERLAPPED_FILES, "0"))));
      }
    }
    return out;
  }

  /**
   * The table holds every offset 0..{@code through} exactly once, with the key and value Kafka
   * serves, and the copy snapshots cover the offsets end to end, each with all of its segment's
   * records. A segment Kafka copied again (it lost track of a finished copy, say in a restart) must
   * hide the earlier copy's rows in the same snapshot; with {@code noRecopy}, no segment may have
   * been copied twice at all.
   */
  void assertTableHoldsEachRecordOnce(Table table, long through, boolean noRecopy)
      throws Exception {
    List<CopySnapshot> copies = copySnapshots(table);
    assertThat(copies).as("copy snapshots of %s", name).isNotEmpty();
    Map<Long, CopySnapshot> byStart = new TreeMap<>();
    for (CopySnapshot c : copies) {
      CopySnapshot earlier = byStart.put(c.start(), c);
      if (earlier != null) {
        assertThat(noRecopy).as("%s copied again in %s (copies %s)", earlier, c, copies).isFalse();
        assertThat(c.end()).as("end of the copy again of %s", earlier).isEqualTo(earlier.end());
        assertThat(c.overlappedFiles()).as("files of the earlier copy %s hid", c).isPositive();
      }
    }
    long next = 0;
    for (CopySnapshot c : byStart.values()) {
      assertThat(c.start()).as("start of %s (copies %s)", c, copies).isEqualTo(next);
      assertThat(c.addedRecords()).as("records of %s", c).isEqualTo(c.end() - c.start() + 1);
      next = c.end() + 1;
    }
    long tableEnd = next - 1;
    assertThat(tableEnd).as("offsets the table holds").isGreaterThanOrEqualTo(through);
    assertThat(copies.stream().map(CopySnapshot::segmentId).distinct().count())
        .as("each segment id committed once")
        .isEqualTo(copies.size());

    List<Row> rows = rows(table);
    assertThat(rows.stream().map(Row::offset).toList())
        .as("offsets of the rows of %s", name)
        .isEqualTo(LongStream.rangeClosed(0, tableEnd).boxed().toList());
    assertThat(rows)
        .as("rows of %s against what Kafka serves", name)
        .isEqualTo(consume(0, tableEnd));
  }

  /** Sum of a FloeRemoteStorageManager JMX counter over the registered instances. */
  static long floeMetric(String metric) throws Exception {
    ObjectName pattern =
        new ObjectName("kafka.server:type=FloeRemoteStorageManager,name=" + metric + ",*");
    long sum = 0;
    for (ObjectName n : ManagementFactory.getPlatformMBeanServer().queryNames(pattern, null)) {
      sum += (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(n, "Count");
    }
    return sum;
  }
}
