package io.floe.layout;

import java.net.URL;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriterFactory;

/**
 * A writer factory whose Parquet writers skip Hadoop's default resources. Iceberg's Parquet writer
 * builds a new Hadoop {@code Configuration} for every file, and each one parses {@code
 * core-default.xml} (about 1.2 ms of CPU) before the writer reads the few Parquet settings it takes
 * from it, all of which Iceberg sets from the table's properties or Parquet defaults in code: a
 * tenth of the CPU of copying small segments, a twentieth of a head view load. While a writer is
 * built, the thread's context class loader, which Hadoop looks the resources up with, answers that
 * no {@code *-default.xml} or {@code *-site.xml} exists, so Hadoop skips them (it does so quietly
 * for default resources); every other lookup and class load goes to Floe's own loader. Not only
 * {@code core-default.xml}: once Parquet's codec factory has touched Hadoop's {@code JobConf} (it
 * does for the first zstd file it reads), every configuration also parses {@code
 * mapred-default.xml} and {@code yarn-default.xml}, 300 KB of XML more.
 */
public final class WithoutHadoopDefaults<T> implements FileWriterFactory<T> {
  private static final ClassLoader LOADER =
      new NoDefaultResources(WithoutHadoopDefaults.class.getClassLoader());

  private final FileWriterFactory<T> delegate;

  public WithoutHadoopDefaults(FileWriterFactory<T> delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public DataWriter<T> newDataWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    return run(() -> delegate.newDataWriter(file, spec, partition));
  }

  @Override
  public EqualityDeleteWriter<T> newEqualityDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    return run(() -> delegate.newEqualityDeleteWriter(file, spec, partition));
  }

  @Override
  public PositionDeleteWriter<T> newPositionDeleteWriter(
      EncryptedOutputFile file, PartitionSpec spec, StructLike partition) {
    return run(() -> delegate.newPositionDeleteWriter(file, spec, partition));
  }

  /**
   * Floe's writer factory for generic records: Parquet data files of {@code dataSchema} in {@code
   * sortOrder} (null: unsorted), Parquet position delete files, {@code writerProperties} (null: the
   * table's) over the table's.
   */
  public static FileWriterFactory<Record> parquet(
      Table table, Schema dataSchema, SortOrder sortOrder, Map<String, String> writerProperties) {
    GenericFileWriterFactory.Builder builder =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(dataSchema)
            .deleteFileFormat(FileFormat.PARQUET);
    if (sortOrder != null) {
      builder.dataSortOrder(sortOrder);
    }
    if (writerProperties != null) {
      builder.writerProperties(writerProperties);
    }
    return new WithoutHadoopDefaults<>(builder.build());
  }

  /** Runs {@code body} with the class loader that hides Hadoop's default resources. */
  static <R> R run(Supplier<R> body) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(LOADER);
    try {
      return body.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Resource lookups of Hadoop's default resources answered "not found": for tests. */
  static long skippedLookups() {
    return ((NoDefaultResources) LOADER).skipped.sum();
  }

  private static final class NoDefaultResources extends ClassLoader {
    static {
      registerAsParallelCapable();
    }

    private final LongAdder skipped = new LongAdder();

    NoDefaultResources(ClassLoader parent) {
      super(parent);
    }

    @Override
    public URL getResource(String name) {
      if (name.indexOf('/') < 0 && (name.endsWith("-default.xml") || name.endsWith("-site.xml"))) {
        skipped.increment();
        return null;
      }
      return super.getResource(name);
    }
  }
}
