package io.floe.copy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Position delete files of row ranges: writes them (one file per table partition, positions in file
 * order) and tells which data file one references.
 */
public final class PositionDeletes {
  private PositionDeletes() {}

  public static List<DeleteFile> write(
      Table table,
      FileWriterFactory<Record> writerFactory,
      OutputFileFactory fileFactory,
      List<RowRange> ranges,
      Consumer<String> onLocation) {
    if (ranges.isEmpty()) {
      return List.of();
    }
    Map<StructLikeWrapper, List<RowRange>> byPartition = new LinkedHashMap<>();
    for (RowRange r : ranges) {
      byPartition
          .computeIfAbsent(
              StructLikeWrapper.forType(table.spec().partitionType()).set(r.partition()),
              k -> new ArrayList<>())
          .add(r);
    }
    List<DeleteFile> files = new ArrayList<>();
    for (List<RowRange> group : byPartition.values()) {
      group.sort(Comparator.comparing(RowRange::location).thenComparingLong(RowRange::firstRow));
      StructLike partition = group.get(0).partition();
      EncryptedOutputFile out = fileFactory.newOutputFile(table.spec(), partition);
      onLocation.accept(out.encryptingOutputFile().location());
      PositionDeleteWriter<Record> writer =
          writerFactory.newPositionDeleteWriter(out, table.spec(), partition);
      PositionDelete<Record> delete = PositionDelete.create();
      try (writer) {
        for (RowRange r : group) {
          for (long row = r.firstRow(); row < r.firstRow() + r.count(); row++) {
            writer.write(delete.set(r.location(), row));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Writing position deletes failed", e);
      }
      files.add(writer.toDeleteFile());
    }
    return files;
  }

  /**
   * Whether every position {@code deletes} holds is in the data file at {@code location}, as its
   * {@code file_path} bounds tell (false when it has none): such a file goes when that data file
   * does.
   */
  public static boolean referencesOnly(DeleteFile deletes, String location) {
    int pathId = MetadataColumns.DELETE_FILE_PATH.fieldId();
    if (deletes.lowerBounds() == null || deletes.upperBounds() == null) {
      return false;
    }
    ByteBuffer lo = deletes.lowerBounds().get(pathId);
    ByteBuffer hi = deletes.upperBounds().get(pathId);
    if (lo == null || hi == null) {
      return false;
    }
    String lower = Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), lo).toString();
    String upper = Conversions.<CharSequence>fromByteBuffer(Types.StringType.get(), hi).toString();
    return lower.equals(location) && upper.equals(location);
  }
}
