package io.floe.tier;

import io.floe.copy.WrittenSegment;
import io.floe.format.OffsetRange;
import io.floe.format.Reencoding;
import io.floe.manifest.BatchDirectory;
import io.floe.manifest.SegmentManifest;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * The sidecar of a copied segment: where its rows went, how fetches re-encode them, and the indexes
 * Kafka is served (the offset index derived from the re-encoded batches, the broker's own time
 * index when it sent one).
 */
final class CopiedManifest {
  private CopiedManifest() {}

  static SegmentManifest of(
      SegmentKey key,
      SegmentFiles files,
      WrittenSegment written,
      Reencoding reencoding,
      int typedCodecVersion,
      int indexIntervalBytes) {
    List<String> dataFiles = new ArrayList<>();
    for (DataFile f : written.dataFiles()) {
      dataFiles.add(f.location());
    }
    BatchDirectory directory = written.directory();
    return SegmentManifest.builder()
        .topic(key.topic())
        .topicId(key.topicId())
        .partition(key.partition())
        .offsets(new OffsetRange(files.baseOffset(), written.lastOffset()))
        .segmentId(key.segmentId())
        .reencoding(reencoding)
        .typedCodecVersion(typedCodecVersion)
        .dataFiles(dataFiles)
        .directory(directory)
        .offsetIndex(directory.offsetIndex(files.baseOffset(), indexIntervalBytes))
        .timeIndex(
            files.timeIndex() != null
                ? files.timeIndex()
                : directory.timeIndex(files.baseOffset(), indexIntervalBytes))
        .transactionIndex(files.transactionIndex())
        .producerSnapshot(files.producerSnapshot())
        .leaderEpochCheckpoint(files.leaderEpochCheckpoint())
        .build();
  }
}
