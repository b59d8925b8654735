package io.floe.format;

/**
 * Kafka offsets {@code first..last} of one partition, both inclusive. Empty when {@code last <
 * first}: a segment with no batch ends one before it starts.
 */
public record OffsetRange(long first, long last) {

  /** What a data file without offset bounds may hold, as far as its metadata tells. */
  public static final OffsetRange ANY = new OffsetRange(Long.MIN_VALUE, Long.MAX_VALUE);

  public boolean isEmpty() {
    return last < first;
  }

  public boolean contains(long offset) {
    return first <= offset && offset <= last;
  }

  /** Whether every offset of {@code other} lies in this range. */
  public boolean contains(OffsetRange other) {
    return first <= other.first && other.last <= last;
  }

  /** The smallest range holding both. */
  public OffsetRange span(OffsetRange other) {
    return new OffsetRange(Math.min(first, other.first), Math.max(last, other.last));
  }

  @Override
  public String toString() {
    return first + ".." + last;
  }
}
