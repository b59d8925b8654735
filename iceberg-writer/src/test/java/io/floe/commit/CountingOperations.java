package io.floe.commit;

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

  private CountingOperations(TableOperations delegate) {
    super(delegate);
  }

  /** {@code table} (a catalog's) as a table whose reads and commits are counted. */
  static Table counted(Table table, CountingOperations[] out) {
    CountingOperations ops = new CountingOperations(((BaseTable) table).operations());
    out[0] = ops;
    return new BaseTable(ops, table.name());
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
}
