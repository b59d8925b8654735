package io.floe.format;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record header. {@code value} may be null. Equality compares the value bytes by content. The
 * array is not copied: do not mutate it.
 */
public record RecordHeader(String key, byte[] value) {
  public RecordHeader {
    Objects.requireNonNull(key, "header key");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordHeader h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "RecordHeader[key="
        + key
        + ", value="
        + (value == null ? "null" : value.length + " bytes")
        + "]";
  }
}
