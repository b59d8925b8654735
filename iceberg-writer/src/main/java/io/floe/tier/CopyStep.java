package io.floe.tier;

/**
 * The steps of {@link TieredSegments#copy}, in order, announced to the caller as each begins: what
 * a copy waits on at any moment, for callers that bound or report its waits.
 */
public enum CopyStep {
  LOAD_TABLE("loading the topic's table (the catalog, the table's metadata file in storage)"),
  WRITE_DATA("writing the segment's data files to storage"),
  WRITE_SIDECAR("writing the segment's sidecar to storage"),
  COMMIT("committing the segment (the catalog, the table's metadata and manifests in storage)");

  private final String description;

  CopyStep(String description) {
    this.description = description;
  }

  /** What the copy does in this step, for messages ("while ..."). */
  public String description() {
    return description;
  }
}
