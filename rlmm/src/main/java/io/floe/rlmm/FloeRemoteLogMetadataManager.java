package io.floe.rlmm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's topic-based remote log metadata manager ({@code
 * remote.log.metadata.manager.class.name=io.floe.rlmm.FloeRemoteLogMetadataManager}), the same in
 * everything but one thing: an offset lookup that Kafka's own answers with "no segment" while a
 * copied segment holds the offset is answered with that segment.
 *
 * <p>Kafka keeps, per leader epoch, one segment per start offset and looks an offset up in the one
 * with the greatest start at or below it. After a leader change two replicas' copies of the same
 * offsets, each cut at its own segment boundaries, can both finish, in either order. When the later
 * one to finish starts higher but ends lower (a demoted leader's copy finishing after its
 * successor's, or a shorter copy replacing one with the same start), the offsets past its end are
 * in no segment Kafka's lookup finds: consumers get {@code OFFSET_OUT_OF_RANGE} for records that
 * are tiered, and that no broker holds locally any more. This lookup then looks at every copied
 * segment of the partition. Every answer Kafka's lookup gives is kept as it is.
 *
 * <p>It must be on the broker's own classpath: Kafka 4.2 and later start a metadata manager only
 * when it is not loaded through {@code remote.log.metadata.manager.class.path}.
 */
public class FloeRemoteLogMetadataManager extends TopicBasedRemoteLogMetadataManager {
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteLogMetadataManager.class);

  /** Segments already logged as found past Kafka's lookup, so that each is logged once. */
  private final Set<RemoteLogSegmentId> logged =
      Collections.synchronizedSet(
          Collections.newSetFromMap(
              new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<RemoteLogSegmentId, Boolean> e) {
                  return size() > 1024;
                }
              }));

  private final AtomicLong foundPastKafkasLookup = new AtomicLong();

  @Override
  public Optional<RemoteLogSegmentMetadata> remoteLogSegmentMetadata(
      TopicIdPartition topicIdPartition, int epochForOffset, long offset)
      throws RemoteStorageException {
    Optional<RemoteLogSegmentMetadata> kafkas =
        super.remoteLogSegmentMetadata(topicIdPartition, epochForOffset, offset);
    if (kafkas.isPresent()) {
      return kafkas;
    }
    Optional<RemoteLogSegmentMetadata> found =
        CopiedSegments.holding(
            super.listRemoteLogSegments(topicIdPartition), epochForOffset, offset);
    found.ifPresent(m -> foundPastKafkasLookup(m, epochForOffset, offset));
    return found;
  }

  /**
   * Kafka's walk to the next segment with a transaction index, through the lookup above, so that a
   * segment Kafka's lookup misses does not end it early.
   */
  @Override
  public Optional<RemoteLogSegmentMetadata> nextSegmentWithTxnIndex(
      TopicIdPartition topicIdPartition, int epoch, long offset) throws RemoteStorageException {
    Optional<RemoteLogSegmentMetadata> segment =
        remoteLogSegmentMetadata(topicIdPartition, epoch, offset);
    while (segment.isPresent() && segment.get().isTxnIdxEmpty()) {
      segment = remoteLogSegmentMetadata(topicIdPartition, epoch, segment.get().endOffset() + 1);
    }
    return segment;
  }

  /** How many lookups found a segment that Kafka's own lookup missed (for tests and operators). */
  public long lookupsFoundPastKafkasLookup() {
    return foundPastKafkasLookup.get();
  }

  private void foundPastKafkasLookup(RemoteLogSegmentMetadata m, int epoch, long offset) {
    foundPastKafkasLookup.incrementAndGet();
    if (logged.add(m.remoteLogSegmentId())) {
      LOG.info(
          "Kafka's remote log metadata lookup has no segment for {} offset {} in leader epoch {},"
              + " but copied segment {} (offsets {}..{}, copied by broker {}) holds it: serving"
              + " it from that segment (logged once per segment)",
          m.topicIdPartition(),
          offset,
          epoch,
          m.remoteLogSegmentId().id(),
          m.startOffset(),
          m.endOffset(),
          m.brokerId());
    }
  }
}
