package io.floe.headview;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The Kafka side of the head view: which partitions a topic has, where its log starts and its last
 * stable offset (LSO), and the committed records in between, read with {@code
 * isolation.level=read_committed} (aborted and open transactions and control records are never
 * returned) by {@link ConsumerReads}.
 */
final class KafkaHead implements AutoCloseable {
  /** A topic as Kafka knows it now. */
  record TopicInfo(String topicId, List<Integer> partitions) {}

  /**
   * Per partition: the log start offset and the last stable offset (exclusive end of what may be
   * read).
   */
  record Offsets(Map<Integer, Long> start, Map<Integer, Long> end) {}

  private final Admin admin;
  private final Duration timeout;
  private final ConsumerReads reads;

  KafkaHead(Map<String, String> kafkaProps, long timeoutMs) {
    this.timeout = Duration.ofMillis(timeoutMs);
    Map<String, Object> adminProps = new HashMap<>(kafkaProps);
    adminProps.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "floe-head-view-admin");
    adminProps.keySet().retainAll(AdminClientConfig.configNames());
    this.admin = Admin.create(adminProps);

    this.reads = new ConsumerReads(kafkaProps, timeout);
  }

  /** The topic's id and partitions, or null when Kafka has no such topic. */
  TopicInfo describe(String topic) throws InterruptedException {
    try {
      TopicDescription d =
          answer(admin.describeTopics(List.of(topic)).allTopicNames(), "describe topic " + topic)
              .get(topic);
      List<Integer> partitions = new ArrayList<>();
      d.partitions().forEach(p -> partitions.add(p.partition()));
      return new TopicInfo(d.topicId().toString(), partitions);
    } catch (UnknownTopicOrPartitionException e) {
      return null;
    }
  }

  /** The topics with {@code remote.storage.enable=true} among those {@code names} accepts. */
  List<String> tieredTopics(java.util.function.Predicate<String> names)
      throws InterruptedException {
    List<String> candidates =
        answer(admin.listTopics().names(), "list the tiered topics").stream()
            .filter(names)
            .sorted()
            .toList();
    if (candidates.isEmpty()) {
      return List.of();
    }
    List<ConfigResource> resources =
        candidates.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    Map<ConfigResource, Config> configs;
    try {
      configs = answer(admin.describeConfigs(resources).all(), "list the tiered topics");
    } catch (UnknownTopicOrPartitionException e) {
      return List.of(); // deleted between the two calls
    }
    List<String> tiered = new ArrayList<>();
    configs.forEach(
        (resource, config) -> {
          ConfigEntry entry = config.get(TopicConfig.REMOTE_LOG_STORAGE_ENABLE_CONFIG);
          if (entry != null && "true".equalsIgnoreCase(entry.value())) {
            tiered.add(resource.name());
          }
        });
    return tiered;
  }

  /**
   * Log start offsets and last stable offsets (read_committed end offsets) of the partitions, both
   * asked at once through the admin client (a consumer asking for a topic it has not seen yet first
   * waits for a metadata update, about 500 ms).
   */
  Offsets offsets(String topic, List<Integer> partitions) throws InterruptedException {
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p : partitions) {
      earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    ListOffsetsOptions committed = new ListOffsetsOptions(IsolationLevel.READ_COMMITTED);
    ListOffsetsResult start = admin.listOffsets(earliest, committed);
    ListOffsetsResult end = admin.listOffsets(latest, committed);
    return new Offsets(offsetsOf(topic, start), offsetsOf(topic, end));
  }

  private Map<Integer, Long> offsetsOf(String topic, ListOffsetsResult result)
      throws InterruptedException {
    String what = "list the offsets of topic " + topic;
    Map<Integer, Long> out = new HashMap<>();
    try {
      answer(result.all(), what).forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    } catch (UnknownTopicOrPartitionException e) {
      throw new KafkaUnavailableException("Could not " + what + ": " + e, e);
    }
    return out;
  }

  /**
   * An admin call's result, awaited for at most the timeout. A topic that does not exist is thrown
   * as Kafka's {@link UnknownTopicOrPartitionException}, for the caller to decide; any other
   * failure, or no answer in time, is a {@link KafkaUnavailableException} naming {@code what} was
   * asked.
   */
  private <T> T answer(KafkaFuture<T> future, String what) throws InterruptedException {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException unknown) {
        throw unknown;
      }
      throw new KafkaUnavailableException("Could not " + what + ": " + e.getCause(), e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new KafkaUnavailableException(
          "Kafka did not answer within " + timeout.toMillis() + " ms (" + what + ")", e);
    }
  }

  /**
   * Hands {@code sink} every committed record of partition p with from[p] <= offset < to[p], in
   * offset order per partition (see {@link ConsumerReads#read}). Returns the number of records.
   */
  long read(
      String topic,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      Consumer<ConsumerRecord<ByteBuffer, ByteBuffer>> sink) {
    return reads.read(topic, from, to, sink);
  }

  @Override
  public void close() {
    reads.close();
    admin.close(Duration.ofSeconds(1));
  }

  /** Kafka could not be reached or did not answer in time. */
  static final class KafkaUnavailableException extends RuntimeException {
    KafkaUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
