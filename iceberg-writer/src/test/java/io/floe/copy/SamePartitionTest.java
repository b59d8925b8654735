package io.floe.copy;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.layout.TopicTableLayout;
import io.floe.layout.TopicTableLayout.TimeTransform;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SamePartitionTest {
  private static final Schema SCHEMA = TopicTableLayout.SCHEMA;
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;

  @ParameterizedTest
  @EnumSource(TimeTransform.class)
  void agreesWithTheFullPartitionKeyOnTimestampsCrossingEveryBoundary(TimeTransform transform) {
    PartitionSpec spec = TopicTableLayout.partitionSpec(transform);
    SamePartition same = SamePartition.of(spec, SCHEMA);
    Random rnd = new Random(7);
    StructLike previous = null;
    int sameCount = 0;
    int changed = 0;
    // around the epoch (negative timestamps included), a year's end, today and before the epoch
    long[] centres = {0L, 1_704_067_200_000L, 1_700_000_000_000L, -31_536_000_000L};
    for (long centre : centres) {
      for (int i = 0; i < 5_000; i++) {
        long spread = i % 3 == 0 ? HOUR : i % 3 == 1 ? 40 * DAY : 400 * DAY;
        long millis = centre + (long) ((rnd.nextDouble() - 0.5) * 2 * spread);
        StructLike key = fullKey(spec, millis);
        boolean expected = previous != null && key.equals(previous);
        assertThat(same.asPrevious(0, millis))
            .as("%s at %s after %s", transform, Instant.ofEpochMilli(millis), previous)
            .isEqualTo(expected);
        sameCount += expected ? 1 : 0;
        changed += expected ? 0 : 1;
        previous = key;
      }
    }
    assertThat(sameCount).as("rows found in the previous row's partition").isPositive();
    if (transform != TimeTransform.NONE) {
      assertThat(changed).as("partition changes seen").isGreaterThan(100);
    }
  }

  @Test
  void lastAndFirstMillisecondOfADayAreApart() {
    SamePartition same =
        SamePartition.of(TopicTableLayout.partitionSpec(TimeTransform.DAY), SCHEMA);
    long midnight = 1_700_006_400_000L; // 2023-11-15T00:00Z
    assertThat(same.asPrevious(0, midnight - 1)).as("the first row").isFalse();
    assertThat(same.asPrevious(0, midnight - DAY)).isTrue();
    assertThat(same.asPrevious(0, midnight)).isFalse();
    assertThat(same.asPrevious(0, midnight + DAY - 1)).isTrue();
    assertThat(same.asPrevious(1, midnight + DAY - 1)).as("another Kafka partition").isFalse();
    assertThat(same.asPrevious(1, midnight + DAY - 2)).isTrue();
  }

  @Test
  void aSpecWithAnotherSourceFieldNeverSaysSame() {
    PartitionSpec evolved =
        PartitionSpec.builderFor(SCHEMA)
            .identity(TopicTableLayout.PARTITION)
            .day(TopicTableLayout.TIMESTAMP)
            .bucket("key", 8)
            .build();
    SamePartition same = SamePartition.of(evolved, SCHEMA);
    for (int i = 0; i < 10; i++) {
      assertThat(same.asPrevious(0, 1_700_000_000_000L)).isFalse();
    }
  }

  private static StructLike fullKey(PartitionSpec spec, long millis) {
    Record kafka =
        GenericRecord.create(SCHEMA.findField(TopicTableLayout.KAFKA).type().asStructType());
    kafka.setField("partition", 3);
    kafka.setField("timestamp", Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC));
    Record row = GenericRecord.create(SCHEMA);
    row.setField(TopicTableLayout.KAFKA, kafka);
    PartitionKey key = new PartitionKey(spec, SCHEMA);
    key.partition(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row));
    return key.copy();
  }
}
