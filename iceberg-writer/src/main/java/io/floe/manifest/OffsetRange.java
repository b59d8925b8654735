package io.floe.manifest;

/**
 * Kafka offsets {@code first..last}, both inclusive. Empty when {@code last < first}: a segment
 * with no batch ends one before it starts.
 */
public record OffsetRange(long first, long last) {

  public boolean isEmpty() {
    return last < first;
  }

  @Override
  public String toString() {
    return first + ".." + last;
  }
}
