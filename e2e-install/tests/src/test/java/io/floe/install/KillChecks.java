package io.floe.install;

import static org.awaitility.Awaitility.await;

import io.floe.install.ReadBack.Seen;
import io.floe.layout.TopicTableOptions;
import io.floe.testing.WarehouseAudit;
import io.floe.tier.TopicTables;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The checks after a kill loop: Kafka tiers everything once the producer stops, consumers read
 * every partition back from offset 0 (from the tier: the local copies are gone), the topic tables
 * hold each offset once, and no object in the warehouse is unaccounted for.
 */
final class KillChecks {
  private final String bootstrap;
  private final Admin admin;
  private final List<TopicPartition> partitions;

  KillChecks(String bootstrap, Admin admin, List<TopicPartition> partitions) {
    this.bootstrap = bootstrap;
    this.admin = admin;
    this.partitions = partitions;
  }

  /**
   * Awaits, for every partition, the remote log end offset reaching the log end (everything tiered)
   * and the local log starting at the log end (every local segment deleted, so reads from offset 0
   * go to the tier). Returns the log end offsets.
   */
  Map<TopicPartition, Long> awaitAllTieredAndRemoteOnly(Duration atMost) {
    Map<TopicPartition, Long> end = new TreeMap<>(KillChecks::compare);
    await("every partition tiered to its end and read from the tier only")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              Map<TopicPartition, Long> latest = offsets(OffsetSpec.latest());
              Map<TopicPartition, Long> tiered = offsets(OffsetSpec.latestTiered());
              Map<TopicPartition, Long> local = offsets(OffsetSpec.earliestLocal());
              end.putAll(latest);
              return partitions.stream()
                  .allMatch(
                      tp ->
                          tiered.get(tp) == latest.get(tp) - 1
                              && local.get(tp).equals(latest.get(tp)));
            });
    return end;
  }

  Map<TopicPartition, Long> offsets(OffsetSpec spec) throws Exception {
    return offsets(admin, partitions, spec);
  }

  /** Each partition's offset of the kind {@code spec} names. */
  static Map<TopicPartition, Long> offsets(
      Admin admin, List<TopicPartition> partitions, OffsetSpec spec) throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(tp -> request.put(tp, spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    admin
        .listOffsets(request)
        .all()
        .get(30, TimeUnit.SECONDS)
        .forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  /** A consumer at {@code isolation} reads every partition from offset 0 to {@code end}. */
  ReadBack consume(
      AckLedger ledger, IsolationLevel isolation, Map<TopicPartition, Long> end, Duration atMost) {
    Map<TopicPartition, List<Seen>> seen = read(isolation, end, atMost);
    ReadBack total = new ReadBack();
    for (TopicPartition tp : partitions) {
      total.add(ReadBack.check(ledger, tp, seen.get(tp), end.get(tp), true));
    }
    return total;
  }

  /** Reads every partition from offset 0 up to {@code end} (exclusive). */
  Map<TopicPartition, List<Seen>> read(
      IsolationLevel isolation, Map<TopicPartition, Long> end, Duration atMost) {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
    // An offset Kafka answers OFFSET_OUT_OF_RANGE for fails the read, naming it, instead of a reset
    // that skips records
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    Map<TopicPartition, List<Seen>> seen = new HashMap<>();
    partitions.forEach(tp -> seen.put(tp, new ArrayList<>()));
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(partitions);
      partitions.forEach(tp -> consumer.seek(tp, 0));
      long deadline = System.nanoTime() + atMost.toNanos();
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "reading "
                  + partitions
                  + " ("
                  + isolation
                  + ") took over "
                  + atMost
                  + "; at "
                  + positions(consumer));
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() < end.get(tp)) {
            seen.get(tp)
                .add(
                    new Seen(
                        r.offset(),
                        AckLedger.seen(
                            tp,
                            r.key() == null ? null : ByteBuffer.wrap(r.key()),
                            r.value() == null ? null : ByteBuffer.wrap(r.value()))));
          }
        }
      }
    }
    return seen;
  }

  private Map<TopicPartition, Long> positions(KafkaConsumer<?, ?> consumer) {
    Map<TopicPartition, Long> out = new TreeMap<>(KillChecks::compare);
    partitions.forEach(tp -> out.put(tp, consumer.position(tp)));
    return out;
  }

  Table table(Catalog catalog, String topic) throws Exception {
    String topicId =
        admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .topicId()
            .toString();
    Table table =
        new TopicTables(catalog, TopicTableOptions.builder().build()).find(topic, topicId);
    if (table == null) {
      throw new AssertionError("no table for topic " + topic);
    }
    return table;
  }

  /**
   * The rows of every topic table, checked per partition: each offset of {@code [0, tiered end]}
   * exactly once, holding the record the producer got an ack for at that offset.
   */
  ReadBack tableRows(AckLedger ledger, Catalog catalog, Map<TopicPartition, Long> tieredEnd)
      throws Exception {
    Map<TopicPartition, List<Seen>> rows = new HashMap<>();
    partitions.forEach(tp -> rows.put(tp, new ArrayList<>()));
    for (String topic : topics()) {
      try (CloseableIterable<Record> records =
          IcebergGenerics.read(table(catalog, topic)).build()) {
        for (Record row : records) {
          Record kafka = (Record) row.getField("kafka");
          TopicPartition tp = new TopicPartition(topic, (Integer) kafka.getField("partition"));
          rows.computeIfAbsent(tp, k -> new ArrayList<>())
              .add(
                  new Seen(
                      (Long) kafka.getField("offset"),
                      AckLedger.seen(
                          tp,
                          (ByteBuffer) row.getField("key"),
                          (ByteBuffer) row.getField("value"))));
        }
      }
    }
    ReadBack total = new ReadBack();
    for (TopicPartition tp : partitions) {
      total.add(ReadBack.check(ledger, tp, rows.get(tp), tieredEnd.get(tp) + 1, false));
    }
    return total;
  }

  /**
   * The orphan audit of every topic table ({@link WarehouseAudit}), plus any object under {@code
   * warehouse} outside every table's location, with when each object was written.
   */
  Audit audit(Catalog catalog, String warehouse) throws Exception {
    List<WarehouseAudit.Result> results = new ArrayList<>();
    List<String> locations = new ArrayList<>();
    SupportsPrefixOperations io = null;
    for (String topic : topics()) {
      Table table = table(catalog, topic);
      results.add(WarehouseAudit.audit(table));
      locations.add(table.location().endsWith("/") ? table.location() : table.location() + "/");
      io = (SupportsPrefixOperations) table.io();
    }
    Set<String> outside = new TreeSet<>();
    Map<String, Long> writtenAt = new HashMap<>();
    for (FileInfo info : io.listPrefix(warehouse)) {
      writtenAt.put(info.location(), info.createdAtMillis());
      if (locations.stream().noneMatch(info.location()::startsWith)) {
        outside.add(info.location());
      }
    }
    return new Audit(results, outside, writtenAt);
  }

  /** The orphan audit's findings over all tables. */
  record Audit(
      List<WarehouseAudit.Result> tables, Set<String> outsideTables, Map<String, Long> writtenAt) {
    /**
     * Objects nothing references: data, delete, sidecar and unknown objects, and the manifest lists
     * and manifests of snapshots never committed (metadata JSON files of commits that lost a race
     * are counted apart: Iceberg leaves them by design).
     */
    Set<String> orphans() {
      Set<String> out = new TreeSet<>(outsideTables);
      tables.forEach(t -> out.addAll(t.orphans()));
      tables.forEach(t -> out.addAll(t.uncommittedSnapshotFiles()));
      return out;
    }

    long unreferencedMetadataFiles() {
      return tables.stream().mapToLong(t -> t.unreferencedMetadataFiles().size()).sum();
    }

    Set<String> missing() {
      Set<String> out = new TreeSet<>();
      tables.forEach(t -> out.addAll(t.missing()));
      return out;
    }

    /**
     * Each orphan and why it is there, or null if nothing explains it. An object written while a
     * copy was in flight on a node that was then killed (between that copy's start and the kill) is
     * left by a copy that never committed nor cleaned up ({@link #KILLED}); one written during a
     * copy Kafka saw fail (between its start and its failure; Kafka interrupts the copies of a
     * leader that loses its leadership) is left by that failed attempt ({@link #FAILED}). A second
     * of clock slack either side.
     */
    Map<String, String> explain(List<KillLoop.Kill> kills, List<CopyLog.FailedCopy> failed) {
      Map<String, String> out = new TreeMap<>();
      for (String orphan : orphans()) {
        long at = writtenAt.getOrDefault(orphan, -1L);
        String why =
            kills.stream()
                .filter(k -> k.midCopy() && within(at, k.copyInFlightSince(), k.atMillis()))
                .findFirst()
                .map(
                    k ->
                        KILLED
                            + ": written "
                            + (k.atMillis() - at)
                            + " ms before node "
                            + k.node()
                            + " was killed with a copy in flight for "
                            + (k.atMillis() - k.copyInFlightSince())
                            + " ms")
                .orElse(null);
        if (why == null) {
          why =
              failed.stream()
                  .filter(f -> within(at, f.startedAt(), f.failedAt()))
                  .findFirst()
                  .map(f -> FAILED + ": written during a failed copy of " + f.partition())
                  .orElse(null);
        }
        out.put(orphan, why);
      }
      return out;
    }

    private static boolean within(long at, long from, long to) {
      return at >= from - 1000 && at <= to + 1000;
    }
  }

  /** How {@link Audit#explain} names an orphan of a copy that SIGKILL cut short. */
  static final String KILLED = "left by a killed copy";

  /** How {@link Audit#explain} names an orphan of a failed copy attempt. */
  static final String FAILED = "left by a failed copy";

  private List<String> topics() {
    return partitions.stream().map(TopicPartition::topic).distinct().toList();
  }

  static int compare(TopicPartition a, TopicPartition b) {
    int c = a.topic().compareTo(b.topic());
    return c != 0 ? c : Integer.compare(a.partition(), b.partition());
  }
}
