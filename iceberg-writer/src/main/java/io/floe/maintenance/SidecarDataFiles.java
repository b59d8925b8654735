package io.floe.maintenance;

import io.floe.manifest.SegmentManifest;
import io.floe.manifest.SidecarObjects;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The data files the sidecars of live segments name. Listing the sidecars is cheap; reading them is
 * not (a table holds one per remote segment), so each sidecar is read once and remembered, until it
 * is gone from the listing or changes (a copy retried under the same segment id rewrites it).
 */
final class SidecarDataFiles {
  private record Version(long size, long createdAtMillis) {}

  private record Named(Version version, List<String> dataFiles) {}

  private final Map<String, Named> bySidecar = new HashMap<>();

  /**
   * The data files named by the sidecars under {@code prefix} now.
   *
   * @throws io.floe.manifest.CorruptSidecarException when a sidecar cannot be read
   */
  synchronized Set<String> under(SupportsPrefixOperations io, String prefix) {
    Set<String> listed = new HashSet<>();
    Set<String> named = new HashSet<>();
    for (FileInfo sidecar : io.listPrefix(prefix)) {
      Version version = new Version(sidecar.size(), sidecar.createdAtMillis());
      Named known = bySidecar.get(sidecar.location());
      if (known == null || !known.version().equals(version)) {
        try {
          known =
              new Named(
                  version,
                  SegmentManifest.dataFilesOf(SidecarObjects.read(io, sidecar.location())));
        } catch (NotFoundException e) {
          continue; // Kafka deleted the segment since the listing: its files are free to go
        }
        bySidecar.put(sidecar.location(), known);
      }
      listed.add(sidecar.location());
      named.addAll(known.dataFiles());
    }
    bySidecar
        .keySet()
        .removeIf(location -> location.startsWith(prefix) && !listed.contains(location));
    return named;
  }

  /** How many sidecars are remembered: for tests. */
  synchronized int remembered() {
    return bySidecar.size();
  }
}
