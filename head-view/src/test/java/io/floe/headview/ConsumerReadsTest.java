package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

class ConsumerReadsTest {
  @Test
  void consumersWaitBrieflyAtTheLogEndUnlessConfiguredOtherwise() {
    try (ConsumerReads reads =
        new ConsumerReads(Map.of("bootstrap.servers", "127.0.0.1:9"), Duration.ofSeconds(5))) {
      assertThat(reads.consumerProps())
          .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10")
          .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    }
    try (ConsumerReads reads =
        new ConsumerReads(
            Map.of(
                "bootstrap.servers", "127.0.0.1:9",
                "fetch.max.wait.ms", "250",
                "isolation.level", "read_uncommitted",
                "group.id", "mine",
                "no.such.client.key", "x"),
            Duration.ofSeconds(5))) {
      assertThat(reads.consumerProps())
          .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "250")
          .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
          .doesNotContainKeys(ConsumerConfig.GROUP_ID_CONFIG, "no.such.client.key");
    }
  }
}
