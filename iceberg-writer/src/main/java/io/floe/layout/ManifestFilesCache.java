package io.floe.layout;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Table;

/**
 * The live data files of data manifests already read, by manifest location, with the column stats
 * of the Kafka partition and offset only. A manifest never changes once written, so planning a copy
 * reads only the manifests committed since the broker last planned one; reading a manifest parses
 * its Avro schema and every entry, the largest part of a copy's CPU in a table that many brokers
 * commit small segments into. Bounded by the number of files held ({@link #NONE} holds none).
 */
public final class ManifestFilesCache {
  /** Reads every manifest anew. */
  public static final ManifestFilesCache NONE = new ManifestFilesCache(0);

  /** Files held by default: a few hundred bytes each. */
  public static final long DEFAULT_MAX_FILES = 50_000;

  private final Cache<String, List<DataFile>> byManifest;

  public ManifestFilesCache(long maxFiles) {
    this.byManifest =
        maxFiles <= 0
            ? null
            : Caffeine.newBuilder()
                .maximumWeight(maxFiles)
                .weigher((String location, List<DataFile> files) -> 1 + files.size())
                .build();
  }

  /** The live data files of {@code manifest} (a data manifest of {@code table}). */
  List<DataFile> liveFiles(Table table, ManifestFile manifest, Set<Integer> statsColumns) {
    if (byManifest == null) {
      return read(table, manifest, statsColumns);
    }
    return byManifest.get(manifest.path(), location -> read(table, manifest, statsColumns));
  }

  private static List<DataFile> read(
      Table table, ManifestFile manifest, Set<Integer> statsColumns) {
    List<DataFile> out = new ArrayList<>();
    try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, table.io(), table.specs())) {
      for (DataFile file : files) {
        out.add(file.copyWithStats(statsColumns));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(out);
  }
}
