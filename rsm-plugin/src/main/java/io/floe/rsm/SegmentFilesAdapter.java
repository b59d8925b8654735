package io.floe.rsm;

import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what Kafka hands over ({@link RemoteLogSegmentMetadata}, {@link LogSegmentData}) into
 * Floe's {@link SegmentKey} and {@link SegmentFiles}.
 */
final class SegmentFilesAdapter {
  // The plugin's log category before its parts had classes of their own: log configs name it.
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteStorageManager.class);

  private SegmentFilesAdapter() {}

  static SegmentKey key(RemoteLogSegmentMetadata metadata) {
    TopicIdPartition tp = metadata.remoteLogSegmentId().topicIdPartition();
    return new SegmentKey(
        tp.topic(),
        tp.topicId().toString(),
        tp.partition(),
        metadata.startOffset(),
        metadata.remoteLogSegmentId().id().toString());
  }

  /**
   * Kafka deletes a segment it never finished copying (after a failed copy, or a copy whose broker
   * died before recording it) with the metadata of the started copy; any other delete is of a
   * segment whose offsets Kafka no longer holds.
   */
  static DeleteReason deleteReason(RemoteLogSegmentMetadata metadata) {
    return metadata.state() == RemoteLogSegmentState.COPY_SEGMENT_STARTED
        ? DeleteReason.COPY_ABANDONED
        : DeleteReason.EXPIRED;
  }

  /**
   * The segment's files, its indexes read into memory. The broker's start offset is the base
   * offset, whatever the file name says; index files that are not there are absent (null).
   */
  static SegmentFiles files(RemoteLogSegmentMetadata metadata, LogSegmentData data)
      throws IOException {
    long baseOffset = metadata.startOffset();
    Long fromName = baseOffsetOf(data.logSegment());
    if (fromName != null && fromName != baseOffset) {
      LOG.warn(
          "Segment file {} has base offset {}, but the broker copies it as starting at {}: using {}",
          data.logSegment().getFileName(),
          fromName,
          baseOffset,
          baseOffset);
    }
    ByteBuffer txn =
        data.transactionIndex().isPresent() ? read(data.transactionIndex().get()) : null;
    ByteBuffer epochs = data.leaderEpochIndex() == null ? null : copy(data.leaderEpochIndex());
    return new SegmentFiles(
        data.logSegment(),
        baseOffset,
        read(data.timeIndex()),
        txn,
        read(data.producerSnapshotIndex()),
        epochs);
  }

  /** The base offset a segment file's name states ({@code 00000000000000000042.log}), else null. */
  static Long baseOffsetOf(Path log) {
    String name = log.getFileName().toString();
    int dot = name.indexOf('.');
    try {
      return Long.parseLong(dot < 0 ? name : name.substring(0, dot));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static ByteBuffer read(Path path) throws IOException {
    if (path == null || !Files.exists(path)) {
      return null;
    }
    return ByteBuffer.wrap(Files.readAllBytes(path));
  }

  private static ByteBuffer copy(ByteBuffer buffer) {
    ByteBuffer src = buffer.duplicate();
    ByteBuffer out = ByteBuffer.allocate(src.remaining());
    out.put(src).flip();
    return out;
  }
}
