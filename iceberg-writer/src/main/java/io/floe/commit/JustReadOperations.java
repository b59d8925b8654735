package io.floe.commit;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A table's operations right after its metadata was read: {@link #refresh()} answers with the
 * metadata they hold instead of reading the table again, unless a commit through them failed since
 * their last read (the table moved: the next refresh reads it). A group commit reads the table once
 * before it decides which members may commit; without these operations Iceberg's snapshot producer
 * would read it again before its first attempt and after its commit. On a REST catalog each read is
 * a round trip in which the server reads the metadata file too (three of them doubled the time a
 * group held the table), and every millisecond between the read and the catalog swap is one in
 * which another broker's commit makes this one fail. After a commit, the catalog's own operations
 * hold (REST) or read (JDBC) the committed metadata.
 */
final class JustReadOperations extends ForwardingTableOperations {
  private boolean moved;

  JustReadOperations(TableOperations delegate) {
    super(delegate);
  }

  @Override
  public TableMetadata refresh() {
    if (moved) {
      moved = false;
      return delegate.refresh();
    }
    return delegate.current();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    try {
      delegate.commit(base, metadata);
    } catch (RuntimeException e) {
      moved = true;
      throw e;
    }
  }
}
