package io.floe.commit;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A catalog table's operations that count the table reads ({@link #refresh()}) and catalog commits
 * asked of them: what a commit costs in round trips to the catalog.
 */
final class CountingOperations implements TableOperations {
  final AtomicInteger refreshes = new AtomicInteger();
  final AtomicInteger commits = new AtomicInteger();
  private final TableOperations delegate;

  private CountingOperations(TableOperations delegate) {
    this.delegate = delegate;
  }

  /** {@code table} (a catalog's) as a table whose reads and commits are counted. */
  static Table counted(Table table, CountingOperations[] out) {
    CountingOperations ops = new CountingOperations(((BaseTable) table).operations());
    out[0] = ops;
    return new BaseTable(ops, table.name());
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    refreshes.incrementAndGet();
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    commits.incrementAndGet();
    delegate.commit(base, metadata);
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return delegate.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }
}
