package io.floe.layout;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.format.OffsetRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;

/**
 * Where the live data files of data manifests already read lie: per manifest location, each file's
 * location, Kafka partition and offset bounds. A manifest never changes once written, so planning a
 * copy reads only the manifests committed since the broker last planned one, and a manifest again
 * only when one of its files may overlap the copy (after a leader change, or for a transaction the
 * segment aborts). Reading a manifest parses its Avro schema and every entry: in brokers committing
 * small segments into one table, it was a third of the plugin's CPU. Bounded by the number of files
 * held, a few hundred bytes each ({@link #NONE} holds none).
 */
public final class ManifestFilesCache {
  /** Reads every manifest anew. */
  public static final ManifestFilesCache NONE = new ManifestFilesCache(0);

  /** Files held by default. */
  public static final long DEFAULT_MAX_FILES = 50_000;

  /**
   * A live data file's location, Kafka partition and offsets (null where its metadata is silent).
   */
  private record FileOffsets(String location, Integer partition, OffsetRange offsets) {
    static FileOffsets of(OffsetBounds bounds, DataFile file) {
      return new FileOffsets(file.location(), bounds.partitionOf(file), bounds.boundsOf(file));
    }

    /** Whether the file may hold offsets of {@code range} in {@code kafkaPartition}. */
    boolean mayHold(int kafkaPartition, OffsetRange range) {
      return (partition == null || partition == kafkaPartition)
          && (offsets == null
              || offsets.first() <= range.last() && range.first() <= offsets.last());
    }
  }

  private final Cache<String, List<FileOffsets>> byManifest;

  public ManifestFilesCache(long maxFiles) {
    this.byManifest =
        maxFiles <= 0
            ? null
            : Caffeine.newBuilder()
                .maximumWeight(maxFiles)
                .weigher((String location, List<FileOffsets> files) -> 1 + files.size())
                .build();
  }

  /**
   * The live data files of {@code manifest} (a data manifest of {@code table}) that may hold
   * offsets of {@code range} in {@code partition}, with their column stats.
   */
  List<DataFile> filesInRange(
      Table table, ManifestFile manifest, OffsetBounds bounds, int partition, OffsetRange range) {
    if (byManifest != null) {
      List<FileOffsets> files =
          byManifest.get(manifest.path(), location -> offsetsOf(table, manifest, bounds));
      if (files.stream().noneMatch(f -> f.mayHold(partition, range))) {
        return List.of();
      }
    }
    List<DataFile> out = new ArrayList<>();
    forEachLiveFile(
        table,
        manifest,
        file -> {
          if (FileOffsets.of(bounds, file).mayHold(partition, range)) {
            out.add(file);
          }
        });
    return out;
  }

  private static List<FileOffsets> offsetsOf(
      Table table, ManifestFile manifest, OffsetBounds bounds) {
    List<FileOffsets> out = new ArrayList<>();
    forEachLiveFile(table, manifest, file -> out.add(FileOffsets.of(bounds, file)));
    return List.copyOf(out);
  }

  private static void forEachLiveFile(Table table, ManifestFile manifest, Consumer<DataFile> each) {
    try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, table.io(), table.specs())) {
      files.forEach(each);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
