package io.floe.layout;

import io.floe.typed.ColumnFormat;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The columns of a typed key or value (layout version 2), for column {@code c} ({@code key} or
 * {@code value}):
 *
 * <ul>
 *   <li>{@code c}: the typed value, its type made from the writer schemas (added when the first
 *       writer schema arrives, evolved by later ones);
 *   <li>{@code c_schema_id}: the registry id of the record's writer schema;
 *   <li>{@code c_message}: Protobuf only, the path of the message type in its file when it is not
 *       the first message;
 *   <li>{@code c_form}: JSON Schema only, which of the writer forms the record's bytes are in when
 *       it is not the canonical one ({@code 1}: Java's numbers, {@code 12.0} and {@code 1.0E7}, as
 *       Jackson writes them); null for the canonical form;
 *   <li>{@code c_status}: {@code ok} (typed columns only), {@code inexact} (typed columns plus the
 *       original bytes, which the typed value does not give back exactly) or {@code undecodable}
 *       (original bytes only); null for a null key or value;
 *   <li>{@code c_reason}: why a record is not {@code ok};
 *   <li>{@code c_raw}: the original bytes when the status is not {@code ok}.
 * </ul>
 */
public final class TypedColumns {
  public static final String STATUS_OK = "ok";
  public static final String STATUS_INEXACT = "inexact";
  public static final String STATUS_UNDECODABLE = "undecodable";

  private TypedColumns() {}

  public static String schemaId(String column) {
    return column + "_schema_id";
  }

  public static String message(String column) {
    return column + "_message";
  }

  public static String form(String column) {
    return column + "_form";
  }

  public static String status(String column) {
    return column + "_status";
  }

  public static String reason(String column) {
    return column + "_reason";
  }

  public static String raw(String column) {
    return column + "_raw";
  }

  /**
   * The schema of a new topic table whose key and value have these formats: the binary layout's
   * columns, with each typed column replaced by its metadata columns (the typed column itself comes
   * with the first writer schema).
   */
  public static Schema schema(ColumnFormat key, ColumnFormat value) {
    List<Types.NestedField> fields = new ArrayList<>();
    int[] nextId = {1000};
    for (Types.NestedField field : TopicTableLayout.SCHEMA.columns()) {
      ColumnFormat format =
          switch (field.name()) {
            case "key" -> key;
            case "value" -> value;
            default -> ColumnFormat.BINARY;
          };
      if (format.typed()) {
        fields.addAll(metadataFields(field.name(), format, nextId));
      } else {
        fields.add(field);
      }
    }
    return new Schema(fields);
  }

  private static List<Types.NestedField> metadataFields(
      String column, ColumnFormat format, int[] nextId) {
    List<Types.NestedField> out = new ArrayList<>();
    out.add(
        Types.NestedField.optional(
            nextId[0]++,
            schemaId(column),
            Types.IntegerType.get(),
            "Registry id of the record's writer schema"));
    if (format.format() == ColumnFormat.Format.PROTOBUF) {
      out.add(
          Types.NestedField.optional(
              nextId[0]++,
              message(column),
              Types.ListType.ofRequired(nextId[0]++, Types.IntegerType.get()),
              "Path of the Protobuf message type in its file; null for the first message"
                  + " written as the single byte 0 ([0] when written as a count and index 0)"));
    }
    if (format.format() == ColumnFormat.Format.JSON_SCHEMA) {
      out.add(
          Types.NestedField.optional(
              nextId[0]++,
              form(column),
              Types.IntegerType.get(),
              "Writer form of the bytes when not the canonical one: 1 = Java's numbers (12.0,"
                  + " 1.0E7); null for the canonical form"));
    }
    out.add(
        Types.NestedField.optional(
            nextId[0]++,
            status(column),
            Types.StringType.get(),
            "ok, inexact (original bytes kept beside the typed value) or undecodable (original "
                + "bytes only); null for a null "
                + column));
    out.add(
        Types.NestedField.optional(
            nextId[0]++, reason(column), Types.StringType.get(), "Why the status is not ok"));
    out.add(
        Types.NestedField.optional(
            nextId[0]++,
            raw(column),
            Types.BinaryType.get(),
            "The original bytes when the status is not ok"));
    return out;
  }
}
