package io.floe.headview;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Table operations of a head view: they start from the real table's metadata and "commit" only in
 * memory. Every file a commit writes (data files, manifests, manifest lists, metadata JSON) goes
 * under the scratch prefix, through the real table's FileIO; the real catalog is never called.
 */
final class ViewOperations implements TableOperations {
  private final FileIO io;
  private final String scratch;
  private final List<String> metadataFiles = new ArrayList<>();
  private TableMetadata current;
  private int version;

  ViewOperations(TableMetadata base, FileIO io, String scratch) {
    this.current = base;
    this.io = io;
    this.scratch = scratch;
  }

  String scratch() {
    return scratch;
  }

  /** Metadata JSON files written so far (for cleanup). */
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
    metadataFiles.add(location);
    current =
        TableMetadata.buildFrom(metadata).discardChanges().withMetadataLocation(location).build();
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return scratch + "/metadata/" + fileName;
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
