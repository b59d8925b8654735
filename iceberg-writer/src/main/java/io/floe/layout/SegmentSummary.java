package io.floe.layout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The snapshot summary keys a segment commit (and a segment delete) writes: which topic, partition,
 * offsets and segment a snapshot is about. The head view reads where committed data ends from them,
 * so they are part of the table layout, not of the committer.
 *
 * <p>A snapshot that commits one segment records it in the single-segment keys ({@link #PARTITION},
 * {@link #START_OFFSET}, ...). A snapshot that commits several segments at once (concurrent copies
 * into one table share a snapshot) lists them all under {@link #SEGMENTS}. {@link #segmentsOf}
 * reads either form.
 */
public final class SegmentSummary {
  public static final String TOPIC_ID = "floe.topic-id";
  public static final String PARTITION = "floe.partition";
  public static final String START_OFFSET = "floe.start-offset";
  public static final String END_OFFSET = "floe.end-offset";
  public static final String SEGMENT_ID = "floe.segment-id";

  /**
   * Files of other copies of the segment's offsets, and how many of their rows the segment hides.
   */
  public static final String OVERLAPPED_FILES = "floe.overlapped-files";

  public static final String OVERLAPPED_ROWS = "floe.overlapped-rows";

  /**
   * The segments of a snapshot that commits more than one: entries {@code
   * partition:start-offset:end-offset:segment-id:topic-id:overlapped-files:overlapped-rows}, joined
   * by commas.
   */
  public static final String SEGMENTS = "floe.segments";

  /** Set on the snapshot that takes a deleted segment's rows out of the table. */
  public static final String OPERATION = "floe.operation";

  public static final String DELETE_SEGMENT = "delete-segment";

  private static final String ENTRY_SEPARATOR = ",";
  private static final String FIELD_SEPARATOR = ":";

  private SegmentSummary() {}

  /** One committed segment as a snapshot summary records it. */
  public record Segment(
      String topicId,
      int partition,
      long startOffset,
      long endOffset,
      String segmentId,
      int overlappedFiles,
      long overlappedRows) {
    public Segment {
      for (String id : List.of(topicId, segmentId)) {
        if (id.isEmpty() || id.contains(ENTRY_SEPARATOR) || id.contains(FIELD_SEPARATOR)) {
          throw new IllegalArgumentException("Not a topic or segment id: '" + id + "'");
        }
      }
    }

    /** True when {@code other} is the same segment of the same topic partition. */
    public boolean sameSegment(Segment other) {
      return partition == other.partition
          && segmentId.equals(other.segmentId)
          && topicId.equals(other.topicId);
    }

    private String entry() {
      return String.join(
          FIELD_SEPARATOR,
          Integer.toString(partition),
          Long.toString(startOffset),
          Long.toString(endOffset),
          segmentId,
          topicId,
          Integer.toString(overlappedFiles),
          Long.toString(overlappedRows));
    }

    private static Segment parse(String entry) {
      String[] f = entry.split(FIELD_SEPARATOR, -1);
      if (f.length != 7) {
        throw new IllegalArgumentException("Not a " + SEGMENTS + " entry: '" + entry + "'");
      }
      return new Segment(
          f[4],
          Integer.parseInt(f[0]),
          Long.parseLong(f[1]),
          Long.parseLong(f[2]),
          f[3],
          Integer.parseInt(f[5]),
          Long.parseLong(f[6]));
    }
  }

  /** Writes the summary of a snapshot that commits {@code segments} (at least one). */
  public static void write(List<Segment> segments, BiConsumer<String, String> set) {
    if (segments.isEmpty()) {
      throw new IllegalArgumentException("A segment commit commits at least one segment");
    }
    if (segments.size() == 1) {
      Segment s = segments.get(0);
      set.accept(TOPIC_ID, s.topicId());
      set.accept(PARTITION, Integer.toString(s.partition()));
      set.accept(START_OFFSET, Long.toString(s.startOffset()));
      set.accept(END_OFFSET, Long.toString(s.endOffset()));
      set.accept(SEGMENT_ID, s.segmentId());
      if (s.overlappedFiles() > 0) {
        set.accept(OVERLAPPED_FILES, Integer.toString(s.overlappedFiles()));
        set.accept(OVERLAPPED_ROWS, Long.toString(s.overlappedRows()));
      }
      return;
    }
    List<String> entries = new ArrayList<>(segments.size());
    segments.forEach(s -> entries.add(s.entry()));
    set.accept(SEGMENTS, String.join(ENTRY_SEPARATOR, entries));
  }

  /**
   * The segments a snapshot's summary says it committed: none for a snapshot that is not a segment
   * commit (a segment delete, another writer's snapshot), nor for one whose segment keys do not
   * parse (whoever wrote them, the snapshot is then treated as another writer's: a copy planned
   * before it plans again, the head view takes the boundary from the files). Parts a summary lacks
   * read as {@code -} (ids) and -1 (start offset).
   */
  public static List<Segment> segmentsOf(Map<String, String> summary) {
    if (summary == null) {
      return List.of();
    }
    try {
      return parse(summary);
    } catch (IllegalArgumentException e) {
      return List.of();
    }
  }

  private static List<Segment> parse(Map<String, String> summary) {
    String listed = summary.get(SEGMENTS);
    if (listed != null) {
      List<Segment> out = new ArrayList<>();
      for (String entry : listed.split(ENTRY_SEPARATOR)) {
        out.add(Segment.parse(entry));
      }
      return out;
    }
    String start = summary.get(START_OFFSET);
    String end = summary.get(END_OFFSET);
    String partition = summary.get(PARTITION);
    if (end == null || partition == null) {
      return List.of();
    }
    return List.of(
        new Segment(
            summary.getOrDefault(TOPIC_ID, "-"),
            Integer.parseInt(partition),
            start == null ? -1 : Long.parseLong(start),
            Long.parseLong(end),
            summary.getOrDefault(SEGMENT_ID, "-"),
            Integer.parseInt(summary.getOrDefault(OVERLAPPED_FILES, "0")),
            Long.parseLong(summary.getOrDefault(OVERLAPPED_ROWS, "0"))));
  }

  /**
   * The partition a segment delete's snapshot is about; null for any other snapshot (and for one
   * whose partition does not parse).
   */
  public static Integer deletedPartitionOf(Map<String, String> summary) {
    if (summary == null || !DELETE_SEGMENT.equals(summary.get(OPERATION))) {
      return null;
    }
    try {
      return Integer.valueOf(summary.get(PARTITION));
    } catch (NumberFormatException e) { // absent (null) or not a number
      return null;
    }
  }
}
