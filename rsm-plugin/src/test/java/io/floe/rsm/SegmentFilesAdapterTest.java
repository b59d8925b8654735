package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What Kafka hands over, as Floe's key and files. */
class SegmentFilesAdapterTest {
  @TempDir Path dir;

  private final TopicIdPartition partition =
      new TopicIdPartition(Uuid.randomUuid(), new TopicPartition("payments", 2));
  private final Uuid segmentId = Uuid.randomUuid();

  private RemoteLogSegmentMetadata startingAt(long startOffset) {
    return new RemoteLogSegmentMetadata(
        new RemoteLogSegmentId(partition, segmentId),
        startOffset,
        startOffset + 9,
        0,
        1,
        0,
        100,
        Map.of(0, startOffset));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] remaining(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  @Test
  void aDeleteOfACopyKafkaNeverFinishedIsAnAbandonedCopyAndAnyOtherAnExpiredSegment() {
    RemoteLogSegmentMetadata started = startingAt(30);
    RemoteLogSegmentMetadata finished =
        started.createWithUpdates(update(RemoteLogSegmentState.COPY_SEGMENT_FINISHED));
    RemoteLogSegmentMetadata deleting =
        finished.createWithUpdates(update(RemoteLogSegmentState.DELETE_SEGMENT_STARTED));

    assertThat(SegmentFilesAdapter.deleteReason(started)).isEqualTo(DeleteReason.COPY_ABANDONED);
    assertThat(SegmentFilesAdapter.deleteReason(finished)).isEqualTo(DeleteReason.EXPIRED);
    assertThat(SegmentFilesAdapter.deleteReason(deleting)).isEqualTo(DeleteReason.EXPIRED);
  }

  private RemoteLogSegmentMetadataUpdate update(RemoteLogSegmentState state) {
    return new RemoteLogSegmentMetadataUpdate(
        new RemoteLogSegmentId(partition, segmentId), 2, Optional.empty(), state, 1);
  }

  @Test
  void theKeyNamesTopicPartitionStartOffsetAndSegmentId() {
    SegmentKey key = SegmentFilesAdapter.key(startingAt(30));
    assertThat(key)
        .isEqualTo(
            new SegmentKey(
                "payments", partition.topicId().toString(), 2, 30, segmentId.toString()));
  }

  @Test
  void theBrokersStartOffsetWinsOverTheFileName() throws Exception {
    Path log = Files.write(dir.resolve("00000000000000000005.log"), new byte[10]);
    Path time = Files.write(dir.resolve("00000000000000000005.timeindex"), bytes("time"));
    Path txn = Files.write(dir.resolve("00000000000000000005.txnindex"), bytes("txn"));
    Path snapshot = Files.write(dir.resolve("00000000000000000005.snapshot"), bytes("snap"));
    ByteBuffer epochs = ByteBuffer.wrap(bytes("xx0\n1\n0 0\n"));
    epochs.position(2);
    LogSegmentData data =
        new LogSegmentData(
            log,
            dir.resolve("00000000000000000005.index"),
            time,
            Optional.of(txn),
            snapshot,
            epochs);

    SegmentFiles files = SegmentFilesAdapter.files(startingAt(12), data);

    assertThat(files.log()).isEqualTo(log);
    assertThat(files.baseOffset()).isEqualTo(12);
    assertThat(remaining(files.timeIndex())).isEqualTo(bytes("time"));
    assertThat(remaining(files.transactionIndex())).isEqualTo(bytes("txn"));
    assertThat(remaining(files.producerSnapshot())).isEqualTo(bytes("snap"));
    assertThat(remaining(files.leaderEpochCheckpoint())).isEqualTo(bytes("0\n1\n0 0\n"));
    // the broker's buffer is copied, not consumed or shared
    assertThat(epochs.position()).isEqualTo(2);
    epochs.put(2, (byte) '9');
    assertThat(remaining(files.leaderEpochCheckpoint())).isEqualTo(bytes("0\n1\n0 0\n"));
  }

  @Test
  void absentIndexesAreNull() throws Exception {
    Path log = Files.write(dir.resolve("00000000000000000000.log"), new byte[10]);
    LogSegmentData data =
        new LogSegmentData(
            log,
            dir.resolve("missing.index"),
            dir.resolve("missing.timeindex"),
            Optional.empty(),
            dir.resolve("missing.snapshot"),
            ByteBuffer.allocate(0));

    SegmentFiles files = SegmentFilesAdapter.files(startingAt(0), data);

    assertThat(files.baseOffset()).isZero();
    assertThat(files.timeIndex()).isNull();
    assertThat(files.transactionIndex()).isNull();
    assertThat(files.producerSnapshot()).isNull();
    assertThat(files.leaderEpochCheckpoint())
        .isNotNull()
        .satisfies(b -> assertThat(b.remaining()).isZero());
  }

  @Test
  void theBaseOffsetOfAFileName() {
    assertThat(SegmentFilesAdapter.baseOffsetOf(Path.of("/logs/t-0/00000000000000000042.log")))
        .isEqualTo(42L);
    assertThat(SegmentFilesAdapter.baseOffsetOf(Path.of("7"))).isEqualTo(7L);
    assertThat(SegmentFilesAdapter.baseOffsetOf(Path.of("segment.log"))).isNull();
  }
}
