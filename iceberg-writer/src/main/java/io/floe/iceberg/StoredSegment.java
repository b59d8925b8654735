package io.floe.iceberg;

import io.floe.sidecar.Sidecar;
import io.floe.sidecar.Sidecar.Section;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;

/** A copied segment, opened from its sidecar: serves its record stream and the indexes Kafka asks for. */
public final class StoredSegment {
  private final Table table;
  private final Sidecar sidecar;
  private final BatchDirectory directory;
  private final List<String> dataFiles;

  StoredSegment(Table table, Sidecar sidecar) {
    this.table = table;
    this.sidecar = sidecar;
    this.directory = BatchDirectory.deserialize(sidecar.require(Section.BATCH_DIRECTORY));
    this.dataFiles = dataFiles(sidecar);
  }

  public BatchDirectory directory() {
    return directory;
  }

  public List<String> dataFiles() {
    return dataFiles;
  }

  /** The re-encoded batches from {@code position} (offset-index coordinates) to the end of the segment. */
  public InputStream fetch(long position) {
    return new ReencodingInputStream(table.io(), table.schema(), dataFiles, directory, position);
  }

  public ByteBuffer offsetIndex() {
    return ByteBuffer.wrap(sidecar.require(Section.OFFSET_INDEX)).asReadOnlyBuffer();
  }

  public ByteBuffer timeIndex() {
    return ByteBuffer.wrap(sidecar.require(Section.TIME_INDEX)).asReadOnlyBuffer();
  }

  public Optional<ByteBuffer> transactionIndex() {
    return sidecar.section(Section.TRANSACTION_INDEX).map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  public Optional<ByteBuffer> producerSnapshot() {
    return sidecar.section(Section.PRODUCER_SNAPSHOT).map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  public Optional<ByteBuffer> leaderEpochCheckpoint() {
    return sidecar.section(Section.LEADER_EPOCH_CHECKPOINT).map(b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
  }

  static List<String> dataFiles(Sidecar sidecar) {
    List<String> out = new ArrayList<>();
    for (String line : sidecar.string(Section.DATA_FILES).split("\n")) {
      if (!line.isEmpty()) {
        out.add(line);
      }
    }
    return out;
  }

  /** {base offset, last offset} from the sidecar's properties. */
  static long[] offsets(Sidecar sidecar) {
    long base = 0;
    long last = -1;
    for (String line : sidecar.string(Section.PROPERTIES).split("\n")) {
      if (line.startsWith("base-offset=")) {
        base = Long.parseLong(line.substring("base-offset=".length()));
      } else if (line.startsWith("last-offset=")) {
        last = Long.parseLong(line.substring("last-offset=".length()));
      }
    }
    return new long[] {base, last};
  }
}
