package io.floe.headview;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations of a head view: they start from the real table's metadata and "commit" only in
 * memory. Every file a commit writes (data files, manifests, manifest lists, metadata JSON) goes
 * under the scratch prefix, through the real table's FileIO; the real catalog is never called.
 * Iceberg asks {@link #metadataFileLocation} for every manifest, manifest list and metadata JSON it
 * writes, so the locations handed out there are the head's metadata files: they are deleted with
 * the head without reading anything back (the object store may be down by then).
 */
final class ViewOperations implements TableOperations {
  private final FileIO io;
  private final String scratch;
  private final Set<String> metadataFiles = new LinkedHashSet<>();
  private TableMetadata current;
  private int version;

  ViewOperations(TableMetadata base, FileIO io, String scratch) {
    this.current = base;
    this.io = io;
    this.scratch = scratch;
  }

  /**
   * The real table's metadata as a head's view starts from: with an unpartitioned spec among its
   * specs (not the default) for single-file increments, and with manifest merging off. A load after
   * a tier commit adds a row delta, which would otherwise merge the table's manifests into new ones
   * under the scratch prefix (reading every one of them) whenever the table's newest manifests
   * reach {@code commit.manifest.min-count-to-merge}.
   */
  static TableMetadata viewMetadata(TableMetadata base) {
    boolean unpartitioned = base.specs().stream().anyMatch(PartitionSpec::isUnpartitioned);
    boolean mergeOff =
        "false".equals(base.properties().get(TableProperties.MANIFEST_MERGE_ENABLED));
    if (unpartitioned && mergeOff) {
      return base;
    }
    TableMetadata.Builder view = TableMetadata.buildFrom(base);
    if (!unpartitioned) {
      view.addPartitionSpec(PartitionSpec.builderFor(base.schema()).build());
    }
    if (!mergeOff) {
      view.setProperties(Map.of(TableProperties.MANIFEST_MERGE_ENABLED, "false"));
    }
    return view.build();
  }

  String scratch() {
    return scratch;
  }

  /** The folder of this process's heads that holds this head (see {@link ScratchFolders}). */
  String folder() {
    return scratch.substring(0, scratch.lastIndexOf('/'));
  }

  /** Manifests, manifest lists and metadata JSON files written so far (for cleanup). */
  synchronized List<String> metadataFiles() {
    return List.copyOf(metadataFiles);
  }

  @Override
  public synchronized TableMetadata current() {
    return current;
  }

  @Override
  public synchronized TableMetadata refresh() {
    return current;
  }

  @Override
  public synchronized void commit(TableMetadata base, TableMetadata metadata) {
    if (base != current) {
      throw new CommitFailedException("Head view metadata changed concurrently");
    }
    version++;
    String location =
        metadataFileLocation(String.format("%05d-%s.metadata.json", version, UUID.randomUUID()));
    TableMetadataParser.write(metadata, io.newOutputFile(location));
    current =
        TableMetadata.buildFrom(metadata).discardChanges().withMetadataLocation(location).build();
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public synchronized String metadataFileLocation(String fileName) {
    String location = scratch + "/metadata/" + fileName;
    metadataFiles.add(location);
    return location;
  }

  @Override
  public LocationProvider locationProvider() {
    return new LocationProvider() {
      @Override
      public String newDataLocation(String filename) {
        return scratch + "/data/" + filename;
      }

      @Override
      public String newDataLocation(PartitionSpec spec, StructLike partitionData, String filename) {
        return scratch + "/data/" + spec.partitionToPath(partitionData) + "/" + filename;
      }
    };
  }
}
