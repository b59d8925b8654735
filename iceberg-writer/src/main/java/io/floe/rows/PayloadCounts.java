package io.floe.rows;

/**
 * How many typed keys and values a copy stored as typed columns only ({@code ok}), as typed columns
 * plus their bytes ({@code inexact}) and as bytes only ({@code undecodable}).
 */
public record PayloadCounts(long ok, long inexact, long undecodable) {
  public static final PayloadCounts NONE = new PayloadCounts(0, 0, 0);

  public PayloadCounts plus(PayloadCounts other) {
    return new PayloadCounts(
        ok + other.ok, inexact + other.inexact, undecodable + other.undecodable);
  }

  public boolean isEmpty() {
    return ok + inexact + undecodable == 0;
  }

  @Override
  public String toString() {
    return ok + " typed, " + inexact + " typed with their bytes, " + undecodable + " undecodable";
  }
}
