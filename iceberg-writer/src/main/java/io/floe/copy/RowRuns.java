package io.floe.copy;

import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * The runs of consecutive rows of one data file that a caller selects row by row, in file order:
 * the row ranges a position delete file hides.
 */
public final class RowRuns {
  private final DataFile file;
  private final List<RowRange> out;
  private long position;
  private long runStart = -1;

  /** Runs of {@code file}'s rows, added to {@code out}. */
  public RowRuns(DataFile file, List<RowRange> out) {
    this.file = file;
    this.out = out;
  }

  /** The next row of the file, selected or not. */
  public void next(boolean selected) {
    if (selected && runStart < 0) {
      runStart = position;
    } else if (!selected && runStart >= 0) {
      out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
      runStart = -1;
    }
    position++;
  }

  /** Adds the run the last rows were in, if they were selected. */
  public void finish() {
    if (runStart >= 0) {
      out.add(new RowRange(file.location(), file.partition(), runStart, position - runStart));
      runStart = -1;
    }
  }
}
