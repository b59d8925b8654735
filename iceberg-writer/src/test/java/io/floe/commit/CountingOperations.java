package io.floe.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A catalog table's operations that count the table reads ({@link #refresh()}) and catalog commits
 * asked of them: what a commit costs in round trips to the catalog.
 */
final class CountingOperations extends ForwardingTableOperations {
  final AtomicInteger refreshes = new AtomicInteger();
  final AtomicInteger commits = new AtomicInteger();

  private final String name;
  private volatile boolean failReadsAfterCommit;
  private volatile boolean unreadable;

  private CountingOperations(TableOperations delegate, String name) {
    super(delegate);
    this.name = name;
  }

  /** Counts what is asked of {@code table}'s (a catalog's) operations. */
  static CountingOperations of(Table table) {
    return new CountingOperations(((BaseTable) table).operations(), table.name());
  }

  /** The table through these operations. */
  Table table() {
    return new BaseTable(this, name);
  }

  /** Every read of the table after the next commit fails, as when storage goes away. */
  void failReadsAfterNextCommit() {
    failReadsAfterCommit = true;
  }

  @Override
  public TableMetadata current() {
    checkReadable();
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    checkReadable();
    refreshes.incrementAndGet();
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    commits.incrementAndGet();
    delegate.commit(base, metadata);
    if (failReadsAfterCommit) {
      unreadable = true;
    }
  }

  private void checkReadable() {
    if (unreadable) {
      throw new UncheckedIOException(new IOException("storage unreachable (test)"));
    }
  }
}
