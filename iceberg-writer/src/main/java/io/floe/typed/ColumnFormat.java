package io.floe.typed;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a topic table stores its keys or its values: the payload format, where the writer schema
 * comes from, and (for the latest-schema mode) the subject. Recorded in the table's properties when
 * the table is created, so a later change of the plugin's rules never re-lays a table.
 */
public record ColumnFormat(Format format, SchemaSource source, String subject) {
  public static final ColumnFormat BINARY =
      new ColumnFormat(Format.BINARY, SchemaSource.WIRE, null);

  static final String PROP_PREFIX = "floe.";

  public ColumnFormat {
    if (format == Format.BINARY && (source != SchemaSource.WIRE || subject != null)) {
      throw new IllegalArgumentException("binary columns have no schema source or subject");
    }
    if (source == SchemaSource.WIRE && subject != null) {
      throw new IllegalArgumentException("a subject is only used with the latest-schema source");
    }
    if (source == SchemaSource.LATEST && (subject == null || subject.isBlank())) {
      throw new IllegalArgumentException("the latest-schema source needs a subject");
    }
  }

  public boolean typed() {
    return format != Format.BINARY;
  }

  /**
   * The table properties that record this format for {@code column} ({@code key} or {@code value}).
   */
  public Map<String, String> properties(String column) {
    Map<String, String> out = new TreeMap<>();
    out.put(PROP_PREFIX + column + ".format", format.configName());
    if (typed()) {
      out.put(PROP_PREFIX + column + ".schema", source.configName());
    }
    if (subject != null) {
      out.put(PROP_PREFIX + column + ".subject", subject);
    }
    return out;
  }

  /**
   * The format {@code properties} record for {@code column}; binary for tables created before typed
   * columns existed (no such property).
   */
  public static ColumnFormat fromProperties(Map<String, String> properties, String column) {
    String format = properties.get(PROP_PREFIX + column + ".format");
    if (format == null) {
      return BINARY;
    }
    Format f = Format.parse(format);
    if (f == Format.BINARY) {
      return BINARY;
    }
    String source = properties.getOrDefault(PROP_PREFIX + column + ".schema", "wire");
    return new ColumnFormat(
        f, SchemaSource.parse(source), properties.get(PROP_PREFIX + column + ".subject"));
  }

  /** A payload format. */
  public enum Format {
    BINARY("binary"),
    AVRO("avro"),
    PROTOBUF("protobuf"),
    JSON_SCHEMA("json-schema");

    private final String configName;

    Format(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }

    public static Format parse(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      for (Format f : values()) {
        if (f.configName.equals(v)) {
          return f;
        }
      }
      throw new IllegalArgumentException(
          "unknown format '" + value + "': expected binary, avro, protobuf or json-schema");
    }
  }

  /**
   * Where the writer schema of a record comes from: the schema id in its wire-format prefix, or the
   * latest schema of a subject for payloads written without the prefix.
   */
  public enum SchemaSource {
    WIRE("wire"),
    LATEST("latest");

    private final String configName;

    SchemaSource(String configName) {
      this.configName = configName;
    }

    public String configName() {
      return configName;
    }

    public static SchemaSource parse(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      for (SchemaSource s : values()) {
        if (s.configName.equals(v)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          "unknown schema source '" + value + "': expected wire or latest");
    }
  }
}
