package io.floe.testing;

import io.floe.commit.SegmentCommitter;
import io.floe.copy.AbortedTransaction;
import io.floe.copy.TransactionIndex;
import io.floe.layout.TopicTableLayout;
import io.floe.layout.TopicTableOptions;
import io.floe.rows.RowCodec;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments;
import io.floe.tier.TopicTables;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;

/** A real catalog plus the bridge on top of it, for one test. */
public final class TableFixture implements AutoCloseable {
  public final JdbcCatalog catalog;
  public final TopicTables tables;
  public final TieredSegments segments;

  public TableFixture(Path dir, TestCatalogs.Storage storage, TopicTableOptions options) {
    this.catalog = TestCatalogs.jdbc(dir, storage);
    this.tables = new TopicTables(catalog, options);
    this.segments = new TieredSegments(tables, new SegmentCommitter());
  }

  public TableFixture(Path dir, TestCatalogs.Storage storage) {
    this(dir, storage, TopicTableOptions.builder().build());
  }

  /** Tables on local disk partitioned by the hour of {@code kafka.timestamp}. */
  public static TableFixture hourly(Path dir) {
    return new TableFixture(
        dir,
        TestCatalogs.Storage.LOCAL,
        TopicTableOptions.builder().timeTransform(TopicTableLayout.TimeTransform.HOUR).build());
  }

  public Table table(String topic, String topicId) {
    Table t = tables.find(topic, topicId);
    t.refresh();
    return t;
  }

  /** What an Iceberg reader sees: offsets, per partition, in the table's current snapshot. */
  public static List<Record> rows(Table table) {
    List<Record> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> out.add(r.copy()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    out.sort(java.util.Comparator.comparingLong(new RowCodec(table.schema())::offsetOf));
    return out;
  }

  /** Fetching the whole copied segment gives back exactly the batches of its log file. */
  public void assertServesExactly(SegmentKey key, Path log) throws java.io.IOException {
    List<io.floe.format.RecordBatch> served;
    try (java.io.InputStream in = segments.open(key).fetch(0)) {
      served = io.floe.testing.Batches.read(in);
    }
    io.floe.testing.Batches.assertSameBatches(io.floe.testing.Batches.read(log), served);
  }

  public static ByteBuffer txnIndex(List<AbortedTransaction> aborted) {
    ByteBuffer buf = ByteBuffer.allocate(aborted.size() * TransactionIndex.ENTRY_SIZE);
    for (AbortedTransaction t : aborted) {
      buf.putShort((short) 0)
          .putLong(t.producerId())
          .putLong(t.firstOffset())
          .putLong(t.lastOffset())
          .putLong(t.lastOffset() + 1);
    }
    return buf.flip();
  }

  @Override
  public void close() throws Exception {
    catalog.close();
  }
}
