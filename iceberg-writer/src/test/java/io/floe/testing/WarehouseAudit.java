package io.floe.testing;

import io.floe.manifest.SegmentManifest;
import io.floe.manifest.SidecarObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The orphan audit: lists every object under a table's location and sorts it into what the table or
 * Floe references — the current and logged metadata files, every snapshot's manifest list,
 * manifests, data and delete files, statistics, Floe's segment sidecars and the data files each
 * sidecar names — and what nothing references.
 *
 * <p>Unreferenced objects are sorted further, by how Iceberg names them:
 *
 * <ul>
 *   <li>{@link Result#unreferencedMetadataFiles}: a {@code metadata/*.metadata.json} not in the
 *       metadata log, written by a catalog commit that lost a race and was never swapped in
 *       (Iceberg's JdbcCatalog and REST server write the new metadata file first and do not delete
 *       it when the swap fails). It holds no data.
 *   <li>{@link Result#uncommittedSnapshotFiles}: manifest lists {@code
 *       snap-<id>-<attempt>-<uuid>.avro} and manifests {@code <uuid>-m<n>.avro} no snapshot has: a
 *       snapshot staged in a transaction that was then given up without being cleaned, an earlier
 *       attempt of a snapshot committed on a retry, or a commit cut short (its broker stopping)
 *       after writing a manifest. They hold no data.
 *   <li>{@link Result#orphans}: anything else (a data, delete or sidecar object).
 * </ul>
 */
public final class WarehouseAudit {
  private static final String SIDECAR_DIR = "/floe/segments/";
  private static final Pattern MANIFEST_LIST =
      Pattern.compile("metadata/snap--?\\d+-\\d+-[0-9a-f-]{36}\\.avro");
  private static final Pattern MANIFEST = Pattern.compile("metadata/[0-9a-f-]{36}-m\\d+\\.avro");

  /** What the audit found under one table's location. */
  public record Result(
      Set<String> listed,
      Set<String> sidecars,
      Set<String> unreferencedMetadataFiles,
      Set<String> uncommittedSnapshotFiles,
      Set<String> orphans,
      Set<String> missing) {

    @Override
    public String toString() {
      return listed.size()
          + " objects, "
          + sidecars.size()
          + " sidecars, "
          + unreferencedMetadataFiles.size()
          + " metadata files of commits that lost a race, "
          + uncommittedSnapshotFiles.size()
          + " manifest lists and manifests of snapshots never committed, orphans "
          + orphans
          + ", referenced but missing "
          + missing;
    }
  }

  private WarehouseAudit() {}

  /** Audits {@code table} as it is now (refresh it first). */
  public static Result audit(Table table) {
    FileIO io = table.io();
    if (!(io instanceof SupportsPrefixOperations prefixes)) {
      throw new IllegalArgumentException(io.getClass() + " cannot list objects");
    }
    String root = table.location().endsWith("/") ? table.location() : table.location() + "/";
    Set<String> listed = new TreeSet<>();
    for (FileInfo info : prefixes.listPrefix(root)) {
      listed.add(info.location());
    }
    Set<String> sidecars = new TreeSet<>();
    Set<String> referenced = new TreeSet<>();
    for (String location : listed) {
      if (location.startsWith(root.substring(0, root.length() - 1) + SIDECAR_DIR)
          && location.endsWith(".floe")) {
        sidecars.add(location);
        referenced.addAll(SegmentManifest.parse(SidecarObjects.read(io, location)).dataFiles());
      }
    }
    referenced.addAll(tableFiles(table));
    Set<String> unreferencedMetadata = new TreeSet<>();
    Set<String> unreferenced = new TreeSet<>();
    for (String location : listed) {
      if (sidecars.contains(location) || referenced.contains(location)) {
        continue;
      }
      if (location.startsWith(root + "metadata/") && location.endsWith(".metadata.json")) {
        unreferencedMetadata.add(location);
      } else {
        unreferenced.add(location);
      }
    }
    Set<String> uncommitted = uncommittedSnapshotFiles(root, unreferenced);
    Set<String> orphans = new TreeSet<>(unreferenced);
    orphans.removeAll(uncommitted);
    Set<String> missing = new TreeSet<>(referenced);
    missing.removeAll(listed);
    return new Result(listed, sidecars, unreferencedMetadata, uncommitted, orphans, missing);
  }

  /**
   * Among {@code unreferenced}, every manifest list and manifest: Iceberg writes them only for
   * snapshots, and one no snapshot references is of a snapshot never committed, of an earlier
   * attempt of a snapshot committed on a retry ({@code snap-<id>-<attempt>-<uuid>.avro}), or of a
   * commit cut short between writing the two (its broker stopping).
   */
  private static Set<String> uncommittedSnapshotFiles(String root, Set<String> unreferenced) {
    Set<String> out = new TreeSet<>();
    for (String location : unreferenced) {
      String name = location.substring(root.length());
      if (MANIFEST_LIST.matcher(name).matches() || MANIFEST.matcher(name).matches()) {
        out.add(location);
      }
    }
    return out;
  }

  /** Every object the table's metadata reaches, through all of its snapshots. */
  static Set<String> tableFiles(Table table) {
    Set<String> files = new TreeSet<>();
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    files.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> files.add(entry.file()));
    for (StatisticsFile stats : table.statisticsFiles()) {
      files.add(stats.path());
    }
    table.partitionStatisticsFiles().forEach(stats -> files.add(stats.path()));
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        files.add(snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        // snapshots share most manifests: read each once
        if (files.add(manifest.path())) {
          files.addAll(contentFiles(table, manifest));
        }
      }
    }
    return files;
  }

  private static List<String> contentFiles(Table table, ManifestFile manifest) {
    List<String> out = new ArrayList<>();
    try (ManifestReader<? extends ContentFile<?>> reader =
        manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, table.io(), table.specs())
            : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
      for (ContentFile<?> file : reader) {
        out.add(file.location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
