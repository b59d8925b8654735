package io.floe.headview;

import io.floe.headview.HeadWriter.HeadFile;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableMetadata;

/**
 * One head as built: the committed metadata it was built on, the view's metadata (what loadTable
 * answers), the offsets it covers, its in-memory table operations and its data files.
 *
 * @param baseLocation metadata location of the committed metadata (null for a staged table)
 * @param metadata the view's metadata
 * @param from per partition, where the head starts
 * @param to per partition, where it ends (exclusive)
 * @param ops the view's table operations (they know the metadata files written)
 * @param files the head's data files (with their delete files)
 */
record BuiltHead(
    String baseLocation,
    TableMetadata metadata,
    Map<Integer, Long> from,
    Map<Integer, Long> to,
    ViewOperations ops,
    List<HeadFile> files) {

  /** Its data files' and their delete files' locations. */
  List<String> fileLocations() {
    return HeadFile.locationsOf(files);
  }

  /** The same head with only {@code remaining} of its data files (the others live on elsewhere). */
  BuiltHead withFiles(List<HeadFile> remaining) {
    return new BuiltHead(baseLocation, metadata, from, to, ops, remaining);
  }

  /** What the planner needs of this head, for a load that found {@code base}. */
  HeadPlanner.Cached cached(TableMetadata base) {
    return new HeadPlanner.Cached(
        baseLocation,
        HeadPlanner.TableShape.of(metadata),
        metadata.snapshots().size() - base.snapshots().size(),
        from,
        to,
        files);
  }
}
