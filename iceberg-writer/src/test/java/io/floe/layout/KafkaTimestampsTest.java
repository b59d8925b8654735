package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class KafkaTimestampsTest {
  private static final long MAX = Long.MAX_VALUE / 1000;
  private static final long MIN = Long.MIN_VALUE / 1000;

  @Test
  void timestampsAreTheInstantsOfTheirMillisecondsInUtcAndComeBack() {
    Random rnd = new Random(3);
    LongStream edges = LongStream.of(0, 1, -1, 999, -999, 1000, -1000, -1001, MAX, MIN);
    LongStream randoms = LongStream.generate(() -> rnd.nextLong() / 1000).limit(100_000);
    LongStream.concat(edges, randoms)
        .forEach(
            millis -> {
              var timestamp = KafkaTimestamps.toTimestamp(millis, 0);
              assertThat(timestamp)
                  .as("%d ms", millis)
                  .isEqualTo(Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC));
              assertThat(KafkaTimestamps.toMillis(timestamp)).isEqualTo(millis);
            });
  }

  @Test
  void timestampsAMicrosecondTimestampCannotHoldAreRefusedWithTheOffset() {
    assertThatThrownBy(() -> KafkaTimestamps.toTimestamp(MAX + 1, 42))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset 42");
    assertThatThrownBy(() -> KafkaTimestamps.toTimestamp(MIN - 1, 43))
        .hasMessageContaining("offset 43");
  }
}
