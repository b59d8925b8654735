package io.floe.commit;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A table's operations right after its metadata was read: they answer {@link #current()} and {@link
 * #refresh()} with the metadata this writer knows to be the table's (as read, then as it committed)
 * instead of reading the table again, unless a commit through them failed (the table moved: the
 * next refresh reads it).
 *
 * <p>A group commit reads the table once before it decides which members may commit; without these
 * operations Iceberg's snapshot producer would read it again before its first attempt and after its
 * commit. On a REST catalog each read is a round trip in which the server reads the metadata file
 * too (three of them doubled the time a group held the table), and every millisecond between the
 * read and the catalog swap is one in which another broker's commit makes this one fail.
 *
 * <p>Nothing after a successful commit reads the table: {@link #committed()} is the metadata the
 * commit wrote. A read there can fail (the broker interrupts a cancelled copy, storage goes away),
 * and a failure after the swap must not pass for a failed commit, whose files the copy would then
 * remove from under the table.
 */
final class JustReadOperations extends ForwardingTableOperations {
  private TableMetadata known;
  private TableMetadata committed;

  JustReadOperations(TableOperations delegate) {
    super(delegate);
    this.known = delegate.current();
  }

  @Override
  public TableMetadata current() {
    return known != null ? known : delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    if (known == null) {
      known = delegate.refresh();
    }
    return known;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    try {
      delegate.commit(base, metadata);
    } catch (RuntimeException e) {
      known = null;
      throw e;
    }
    known = metadata;
    committed = metadata;
  }

  /** The metadata the last successful commit through these operations wrote, or null. */
  TableMetadata committed() {
    return committed;
  }
}
