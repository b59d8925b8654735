package io.floe.commit;

import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.iceberg.DeleteFile;

/**
 * Names the position-delete files with which a segment hides the rows of other replicas' copies it
 * overlaps, so that deleting the segment can take them back: once a segment's own rows leave the
 * table, the rows it hid in other files must be visible again (no offset may vanish while a live
 * segment still holds it).
 */
public final class OverlapDeletes {
  private static final String PREFIX = "overlap-";
  private static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

  private OverlapDeletes() {}

  /** The operation id the delete files of {@code segmentId}'s overlaps are written under. */
  static String operationId(String segmentId) {
    return PREFIX + segmentId + "-" + UUID.randomUUID();
  }

  /**
   * Which delete files hide rows that segment {@code segmentId} overlapped. The segment id is
   * matched whole (followed by the random UUID of {@link #operationId}), so that an id that is a
   * prefix of another never claims the other's files.
   */
  public static Predicate<DeleteFile> writtenFor(String segmentId) {
    Pattern name =
        Pattern.compile("-" + PREFIX + Pattern.quote(segmentId) + "-" + UUID_PATTERN + "-");
    return deletes -> {
      String location = deletes.location();
      return name.matcher(location.substring(location.lastIndexOf('/') + 1)).find();
    };
  }
}
