package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.floe.e2e.MirroredTopic.Rec;
import io.floe.layout.SegmentSummary;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.WarehouseAudit;
import io.floe.tier.TopicTables;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.RemoteLogInputStream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.server.log.remote.storage.RemoteLogManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;

/**
 * The checks that follow every multi-broker scenario: what Kafka has tiered, what consumers read
 * back at both isolation levels, what the Iceberg table holds, and what every remote segment Kafka
 * knows serves.
 */
final class TierChecks {
  static final Duration AWAIT = Duration.ofMinutes(2);

  private final ThreeBrokerCluster cluster;
  private final Admin admin;

  TierChecks(ThreeBrokerCluster cluster, Admin admin) {
    this.cluster = cluster;
    this.admin = admin;
  }

  Map<Integer, Long> offsets(String topic, int partitions, OffsetSpec spec) throws Exception {
    return offsets(topic, partitions, spec, IsolationLevel.READ_UNCOMMITTED);
  }

  private Map<Integer, Long> offsets(
      String topic, int partitions, OffsetSpec spec, IsolationLevel isolation) throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), spec);
    }
    Map<Integer, Long> out = new TreeMap<>();
    admin
        .listOffsets(request, new ListOffsetsOptions(isolation))
        .all()
        .get()
        .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    return out;
  }

  /** Awaits Kafka tiering every partition of {@code topic} through the given offsets. */
  void awaitTieredThrough(MirroredTopic topic, Map<Integer, Long> through, String why) {
    await(why + ": Kafka tiers " + topic.name + " through " + through)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () -> {
              Map<Integer, Long> tiered =
                  offsets(topic.name, topic.partitions, OffsetSpec.latestTiered());
              return through.entrySet().stream()
                  .allMatch(e -> tiered.get(e.getKey()) >= e.getValue());
            });
  }

  /**
   * Awaits Kafka tiering all it has of {@code topic} (an idle active segment is rolled by local
   * retention) and deleting the local copies through {@code end}: reads of those offsets go to the
   * remote tier. Returns the last tiered offset per partition.
   */
  Map<Integer, Long> awaitAllTieredAndRemoteOnly(MirroredTopic topic, Map<Integer, Long> end) {
    return awaitAllTieredAndRemoteOnly(topic.name, topic.partitions, end);
  }

  /** {@link #awaitAllTieredAndRemoteOnly(MirroredTopic, Map)} of a topic without a reference. */
  Map<Integer, Long> awaitAllTieredAndRemoteOnly(
      String topic, int partitions, Map<Integer, Long> end) {
    Map<Integer, Long> tiered = new TreeMap<>();
    await("Kafka tiers all of " + topic + " and deletes its local copies through " + end)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptions()
        .until(
            () -> {
              tiered.putAll(offsets(topic, partitions, OffsetSpec.latestTiered()));
              Map<Integer, Long> latest = offsets(topic, partitions, OffsetSpec.latest());
              Map<Integer, Long> local = offsets(topic, partitions, OffsetSpec.earliestLocal());
              return latest.entrySet().stream()
                  .allMatch(
                      e ->
                          tiered.get(e.getKey()) == e.getValue() - 1
                              && local.get(e.getKey()) > end.get(e.getKey()));
            });
    return tiered;
  }

  /**
   * Consumers at both isolation levels read back, from offset 0, exactly what the reference topic
   * holds and what the producer got acks for (read_committed: without the aborted transactions).
   */
  void assertConsumersReadBack(MirroredTopic topic) throws Exception {
    for (IsolationLevel isolation : IsolationLevel.values()) {
      List<Rec> expected =
          isolation == IsolationLevel.READ_COMMITTED ? topic.committed() : topic.acked();
      List<Rec> tiered = consume(topic.name, topic.partitions, isolation);
      assertSame(topic.name + " read " + isolation + " against the acks", tiered, expected);
      List<Rec> reference = consume(topic.reference, topic.partitions, isolation);
      assertSame(topic.reference + " read " + isolation + " against the acks", reference, expected);
    }
  }

  /** What a consumer reads from offset 0 to the end of every partition, in offset order. */
  List<Rec> consume(String topic, int partitions, IsolationLevel isolation) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // An offset Kafka answers OFFSET_OUT_OF_RANGE for fails the read, naming it, instead of a reset
    // that skips records
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    List<Rec> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      long deadline = System.nanoTime() + AWAIT.toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime())
            .as("reading %s (%s) within %s", topic, isolation, AWAIT)
            .isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          out.add(
              new Rec(
                  r.partition(),
                  r.offset(),
                  new String(r.key(), StandardCharsets.UTF_8),
                  r.value() == null ? -1 : r.value().length,
                  MirroredTopic.digest(r.value() == null ? null : ByteBuffer.wrap(r.value()))));
        }
      }
    }
    out.sort(Comparator.comparingInt(Rec::partition).thenComparingLong(Rec::offset));
    return out;
  }

  static void assertSame(String what, List<Rec> actual, List<Rec> expected) {
    for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
      if (!actual.get(i).equals(expected.get(i))) {
        throw new AssertionError(
            what
                + ": record "
                + i
                + " differs:\n  expected "
                + expected.get(i)
                + "\n  actual   "
                + actual.get(i));
      }
    }
    assertThat(actual.size()).as(what + ": record count").isEqualTo(expected.size());
  }

  Table table(Catalog catalog, String topic) throws Exception {
    String topicId =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId().toString();
    Table table =
        new TopicTables(catalog, TopicTableOptions.builder().build()).find(topic, topicId);
    assertThat(table).as("table of %s", topic).isNotNull();
    return table;
  }

  /**
   * The table holds each committed record of the tiered offsets exactly once per partition (count
   * and distinct offsets), with the key and value the producer sent, from offset 0 through at least
   * what Kafka has tiered.
   */
  void assertTableHoldsEachRecordOnce(Table table, MirroredTopic topic, Map<Integer, Long> tiered)
      throws Exception {
    Map<Integer, List<Rec>> rows = rowsByPartition(table);
    for (int p = 0; p < topic.partitions; p++) {
      List<Rec> held = rows.getOrDefault(p, List.of());
      assertThat(held.stream().map(Rec::offset).distinct().count())
          .as("distinct offsets of %s partition %d in the table", topic.name, p)
          .isEqualTo(held.size());
      long tableEnd = held.isEmpty() ? -1 : held.get(held.size() - 1).offset();
      long through = Math.max(tableEnd, tiered.get(p));
      int partition = p;
      List<Rec> expected =
          topic.committed().stream()
              .filter(r -> r.partition() == partition && r.offset() <= through)
              .toList();
      assertSame(topic.name + " partition " + p + " rows in the table", held, expected);
    }
  }

  /** The rows an Iceberg reader sees, per partition in offset order. */
  static Map<Integer, List<Rec>> rowsByPartition(Table table) throws Exception {
    table.refresh();
    Map<Integer, List<Rec>> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record row : records) {
        Record kafka = (Record) row.getField("kafka");
        ByteBuffer value = (ByteBuffer) row.getField("value");
        int partition = (Integer) kafka.getField("partition");
        rows.computeIfAbsent(partition, p -> new ArrayList<>())
            .add(
                new Rec(
                    partition,
                    (Long) kafka.getField("offset"),
                    StandardCharsets.UTF_8.decode((ByteBuffer) row.getField("key")).toString(),
                    value == null ? -1 : value.remaining(),
                    MirroredTopic.digest(value)));
      }
    }
    rows.values().forEach(held -> held.sort(Comparator.comparingLong(Rec::offset)));
    return rows;
  }

  /**
   * The orphan audit: the table's location holds no data, delete or sidecar object that no snapshot
   * or sidecar references, and nothing referenced is missing. Metadata files of commits that lost a
   * race are allowed (Iceberg leaves them; see PRODUCTION.md); the result lists them.
   */
  static WarehouseAudit.Result assertNoOrphans(Table table) {
    table.refresh();
    WarehouseAudit.Result audit = WarehouseAudit.audit(table);
    assertThat(audit.orphans()).as("objects nothing references (%s)", audit).isEmpty();
    assertThat(audit.missing()).as("objects referenced but missing (%s)", audit).isEmpty();
    return audit;
  }

  /**
   * The segments committed in the table's current history that hid rows of another replica's copy,
   * in commit order.
   */
  static List<SegmentSummary.Segment> overlapSnapshots(Table table) {
    table.refresh();
    List<SegmentSummary.Segment> out = new ArrayList<>();
    for (Snapshot s = table.currentSnapshot();
        s != null;
        s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      List<SegmentSummary.Segment> segments = SegmentSummary.segmentsOf(s.summary());
      for (int i = segments.size() - 1; i >= 0; i--) {
        if (segments.get(i).overlappedFiles() > 0) {
          out.add(0, segments.get(i));
        }
      }
    }
    return out;
  }

  /** The remote segments Kafka lists for a partition as copied, in offset order. */
  List<RemoteLogSegmentMetadata> remoteSegments(String topic, int partition) throws Exception {
    TopicPartition tp = new TopicPartition(topic, partition);
    TopicIdPartition tip =
        new TopicIdPartition(
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId(), tp);
    RemoteLogManager rlm = cluster.remoteLogManager(leader(tp));
    List<RemoteLogSegmentMetadata> out = new ArrayList<>();
    rlm.remoteLogMetadataManager()
        .listRemoteLogSegments(tip)
        .forEachRemaining(
            m -> {
              if (m.state() == RemoteLogSegmentState.COPY_SEGMENT_FINISHED) {
                out.add(m);
              }
            });
    out.sort(Comparator.comparingLong(RemoteLogSegmentMetadata::startOffset));
    return out;
  }

  /** Kafka's remote segments of every partition, as {@code start..end@broker}, for the log. */
  String describeRemoteSegments(MirroredTopic topic) throws Exception {
    StringBuilder out = new StringBuilder();
    for (int p = 0; p < topic.partitions; p++) {
      out.append(" p").append(p).append(':');
      for (RemoteLogSegmentMetadata m : remoteSegments(topic.name, p)) {
        out.append(' ')
            .append(m.startOffset())
            .append("..")
            .append(m.endOffset())
            .append('@')
            .append(m.brokerId());
      }
    }
    return out.toString();
  }

  /**
   * Sets {@code retention.ms} to one second: Kafka deletes every remote segment of the topic (those
   * of every leader, overlapping or not), and with {@code retention.mode=delete} their rows leave
   * the table, rows they hid in other copies included: awaits the table holding no row.
   */
  void assertRetentionEmptiesTheTable(Table table, MirroredTopic topic, Map<Integer, Long> tiered)
      throws Exception {
    admin
        .incrementalAlterConfigs(
            Map.of(
                new ConfigResource(ConfigResource.Type.TOPIC, topic.name),
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET))))
        .all()
        .get();
    long[] rows = {-1};
    await("retention deletes every tiered record of " + topic.name + " and its rows")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              Map<Integer, Long> start =
                  offsets(topic.name, topic.partitions, OffsetSpec.earliest());
              if (!tiered.entrySet().stream().allMatch(e -> start.get(e.getKey()) > e.getValue())) {
                return false;
              }
              table.refresh();
              rows[0] = 0;
              try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
                records.forEach(r -> rows[0]++);
              }
              return rows[0] == 0;
            });
  }

  int leader(TopicPartition tp) throws Exception {
    return admin
        .describeTopics(List.of(tp.topic()))
        .allTopicNames()
        .get()
        .get(tp.topic())
        .partitions()
        .get(tp.partition())
        .leader()
        .id();
  }

  /**
   * Every remote segment Kafka lists for the topic, fetched whole through the plugin of the
   * partition's leader, serves exactly the records the producer got acks for at its offsets
   * (aborted ones included, as Kafka stores them). Returns how many pairs of those segments overlap
   * in part (another replica's boundaries).
   */
  int assertEveryRemoteSegmentServesExactly(MirroredTopic topic) throws Exception {
    int partialOverlaps = 0;
    for (int p = 0; p < topic.partitions; p++) {
      List<RemoteLogSegmentMetadata> segments = remoteSegments(topic.name, p);
      assertThat(segments).as("remote segments of %s-%d", topic.name, p).isNotEmpty();
      RemoteLogManager rlm = cluster.remoteLogManager(leader(new TopicPartition(topic.name, p)));
      for (RemoteLogSegmentMetadata m : segments) {
        int partition = p;
        List<Rec> expected =
            topic.acked().stream()
                .filter(
                    r ->
                        r.partition() == partition
                            && r.offset() >= m.startOffset()
                            && r.offset() <= m.endOffset())
                .toList();
        assertSame("remote segment " + m, served(rlm, m, p), expected);
      }
      for (int i = 0; i < segments.size(); i++) {
        for (int j = i + 1; j < segments.size(); j++) {
          RemoteLogSegmentMetadata a = segments.get(i);
          RemoteLogSegmentMetadata b = segments.get(j);
          if (a.startOffset() < b.startOffset()
              && b.startOffset() <= a.endOffset()
              && a.endOffset() < b.endOffset()) {
            partialOverlaps++;
          }
        }
      }
    }
    return partialOverlaps;
  }

  private static List<Rec> served(RemoteLogManager rlm, RemoteLogSegmentMetadata m, int partition)
      throws Exception {
    List<Rec> out = new ArrayList<>();
    try (InputStream in = rlm.storageManager().fetchLogSegment(m, 0)) {
      RemoteLogInputStream batches = new RemoteLogInputStream(in);
      for (RecordBatch batch = batches.nextBatch(); batch != null; batch = batches.nextBatch()) {
        if (batch.isControlBatch()) {
          continue;
        }
        for (org.apache.kafka.common.record.internal.Record r : batch) {
          byte[] key = Utils.toArray(r.key());
          out.add(
              new Rec(
                  partition,
                  r.offset(),
                  new String(key, StandardCharsets.UTF_8),
                  r.valueSize(),
                  MirroredTopic.digest(r.value())));
        }
      }
    }
    return out;
  }
}
