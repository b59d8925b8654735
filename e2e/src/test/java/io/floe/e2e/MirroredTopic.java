package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A tiered topic and its reference twin (the same partitions and replicas, no tiering), written
 * together: every record goes to the same partition of both, and the producer's acks must name the
 * same offset in both, so the reference holds at each offset what the tiered topic must serve.
 * Remembers what the producer got acks for (value by digest, so long runs stay small in memory),
 * and which of those records belong to aborted transactions.
 */
final class MirroredTopic {
  static final int VALUE_BYTES = 10 * 1024;
  static final String REFERENCE_SUFFIX = ".reference";

  /** One record as produced, consumed or read from the table: the value by length and digest. */
  record Rec(int partition, long offset, String key, int valueLength, long valueDigest) {}

  final String name;
  final String reference;
  final int partitions;
  private final List<NavigableMap<Long, Rec>> acked = new ArrayList<>();
  private final List<NavigableMap<Long, Boolean>> aborted = new ArrayList<>();
  private final AtomicLong sequence = new AtomicLong();

  private MirroredTopic(String name, int partitions) {
    this.name = name;
    this.reference = name + REFERENCE_SUFFIX;
    this.partitions = partitions;
    for (int p = 0; p < partitions; p++) {
      acked.add(new ConcurrentSkipListMap<>());
      aborted.add(new ConcurrentSkipListMap<>());
    }
  }

  /**
   * Creates both topics. Partition p's replicas are {@code firstLeader + p, + 1, + 2} (mod 3), so
   * its preferred leader is broker {@code (firstLeader + p) % 3} and the partitions of a topic are
   * led by every broker. The tiered topic has 1 MiB segments, local copies deleted a second after
   * tiering and no retention, plus {@code configs}.
   */
  static MirroredTopic create(
      Admin admin, String name, int partitions, int firstLeader, Map<String, String> configs)
      throws Exception {
    Map<Integer, List<Integer>> assignment = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      int leader = (firstLeader + p) % 3;
      assignment.put(p, List.of(leader, (leader + 1) % 3, (leader + 2) % 3));
    }
    return create(admin, name, assignment, configs);
  }

  /**
   * Creates both topics with the given replicas per partition (partitions 0 to n - 1), the tiered
   * one with the configs of {@link #create(Admin, String, int, int, Map)}.
   */
  static MirroredTopic create(
      Admin admin, String name, Map<Integer, List<Integer>> assignment, Map<String, String> configs)
      throws Exception {
    int partitions = assignment.size();
    MirroredTopic topic = new MirroredTopic(name, partitions);
    Map<String, String> tiered = new HashMap<>();
    tiered.put("remote.storage.enable", "true");
    tiered.put("segment.bytes", "1048576");
    tiered.put("local.retention.ms", "1000");
    tiered.put("retention.ms", "-1");
    tiered.putAll(configs);
    admin
        .createTopics(
            List.of(
                new NewTopic(name, assignment).configs(tiered),
                new NewTopic(topic.reference, assignment).configs(Map.of("retention.ms", "-1"))))
        .all()
        .get();
    // A produce that a just-elected leader refuses (it has not learned its leadership yet) is
    // retried behind the next batches, which a partition without producer state accepts first: the
    // two topics would get the records in different orders. Listing offsets succeeds only once
    // every leader knows it leads.
    Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      ends.put(new TopicPartition(name, p), OffsetSpec.latest());
      ends.put(new TopicPartition(topic.reference, p), OffsetSpec.latest());
    }
    await("leaders of " + name + " and " + topic.reference + " ready")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> admin.listOffsets(ends).all().get().size() == ends.size());
    return topic;
  }

  /** A producer for {@link #send}: idempotent, acks from all in-sync replicas. */
  static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, Object> extra) {
    Map<String, Object> props = new HashMap<>();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.putAll(extra);
    return new KafkaProducer<>(props);
  }

  /** A record about to be sent to both topics, with its two acks once the producer has them. */
  final class Pending {
    private final int partition;
    private final String key;
    private final byte[] value;
    private final Future<RecordMetadata> tieredAck;
    private final Future<RecordMetadata> referenceAck;

    private Pending(KafkaProducer<byte[], byte[]> producer, int partition) {
      this.partition = partition;
      long n = sequence.getAndIncrement();
      this.key = name + "-" + partition + "-" + n;
      this.value = new byte[VALUE_BYTES];
      new Random(key.hashCode()).nextBytes(value);
      byte[] k = key.getBytes(StandardCharsets.UTF_8);
      this.tieredAck = producer.send(new ProducerRecord<>(name, partition, k, value));
      this.referenceAck = producer.send(new ProducerRecord<>(reference, partition, k, value));
    }

    boolean isDone() {
      return tieredAck.isDone() && referenceAck.isDone();
    }

    /**
     * Waits for both acks, checks they name the same offset and remembers the record; returns it.
     */
    Rec acked(boolean inAbortedTransaction) throws Exception {
      long offset = tieredAck.get().offset();
      assertThat(referenceAck.get().offset())
          .as("offset of %s in %s and in %s", key, name, reference)
          .isEqualTo(offset);
      Rec rec = new Rec(partition, offset, key, value.length, digest(ByteBuffer.wrap(value)));
      acked.get(partition).put(offset, rec);
      if (inAbortedTransaction) {
        aborted.get(partition).put(offset, true);
      }
      return rec;
    }
  }

  /** Sends one record to partition {@code partition} of both topics. */
  Pending send(KafkaProducer<byte[], byte[]> producer, int partition) {
    return new Pending(producer, partition);
  }

  /**
   * Sends {@code perPartition} records to every partition of both topics (round robin) inside the
   * producer's open transaction, which the caller then commits or aborts as {@code aborting} says,
   * and waits for their acks; returns the offset of the last record per partition.
   */
  Map<Integer, Long> produceInTransaction(
      KafkaProducer<byte[], byte[]> producer, int perPartition, boolean aborting) throws Exception {
    List<Pending> pending = new ArrayList<>();
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < partitions; p++) {
        pending.add(send(producer, p));
      }
    }
    producer.flush();
    Map<Integer, Long> last = new TreeMap<>();
    for (Pending s : pending) {
      Rec rec = s.acked(aborting);
      last.merge(rec.partition(), rec.offset(), Math::max);
    }
    return last;
  }

  /** The records the producer got acks for, by partition and offset (aborted ones included). */
  List<Rec> acked() {
    List<Rec> out = new ArrayList<>();
    acked.forEach(m -> out.addAll(m.values()));
    return out;
  }

  /** The acked records outside aborted transactions: what read_committed readers must see. */
  List<Rec> committed() {
    List<Rec> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (Rec r : acked.get(p).values()) {
        if (!aborted.get(p).containsKey(r.offset())) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /** The highest acked offset per partition. */
  Map<Integer, Long> lastAcked() {
    Map<Integer, Long> out = new TreeMap<>();
    for (int p = 0; p < partitions; p++) {
      Map.Entry<Long, Rec> last = acked.get(p).lastEntry();
      out.put(p, last == null ? -1 : last.getKey());
    }
    return out;
  }

  static long digest(ByteBuffer value) {
    if (value == null) {
      return -1;
    }
    ByteBuffer b = value.duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return (crc.getValue() << 32) ^ Arrays.hashCode(bytes);
  }
}
