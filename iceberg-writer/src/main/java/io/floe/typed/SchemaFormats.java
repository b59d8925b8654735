package io.floe.typed;

/** The {@link SchemaFormat} of each typed {@link ColumnFormat.Format}. */
public final class SchemaFormats {
  private SchemaFormats() {}

  public static SchemaFormat of(ColumnFormat.Format format) {
    throw new IllegalArgumentException("no schema format for " + format.configName() + " yet");
  }
}
