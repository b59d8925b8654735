package io.floe.rows;

import io.floe.layout.TypedColumns;
import io.floe.typed.ColumnFormat;
import io.floe.typed.FieldPlacement;
import io.floe.typed.PayloadCodec;
import io.floe.typed.SchemaEvolutionRequired;
import io.floe.typed.SchemaUnavailableException;
import io.floe.typed.TypeCoverage;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.WireFormat;
import io.floe.typed.WriterSchema;
import io.floe.typed.WriterSchemas;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Keys or values in typed columns ({@link TypedColumns}), lossless by verification: each record is
 * decoded with its writer schema, re-encoded from the value with the code fetch uses, and compared
 * byte for byte. Exact: typed columns only. Inexact: typed columns plus the original bytes.
 * Undecodable (not the wire format, a schema that cannot be had, an invalid payload): the original
 * bytes and the reason. A record's content never fails a copy; the one exception is a writer schema
 * the table cannot hold yet, {@link SchemaEvolutionRequired}, for the copy to evolve the table (a
 * codec that does not evolve its table keeps such a record's bytes instead). Writer fields are
 * matched to the column's by {@link FieldPlacement}, which copies and fetches compute alike from
 * the writer schema and the column's current type.
 */
public final class TypedValueCodec implements ValueCodec {
  /**
   * The version of the typed payload codecs (wire-format prefix, Avro, Protobuf and JSON Schema
   * canonical forms) recorded in each segment a typed table gets: fetch refuses a segment typed by
   * a newer one rather than re-encode it differently. 2: JSON Schema's second writer form (Java's
   * numbers), recorded in the form column. 3: Protobuf's first message written as a count and index
   * 0, recorded as the message path [0].
   */
  public static final int VERSION = 3;

  /**
   * The version a segment of a column of {@code format} records: the oldest that re-encodes it the
   * same (0 for binary), so that during a rolling upgrade brokers still on the previous version
   * keep serving what they can.
   */
  public static int versionFor(ColumnFormat format) {
    if (!format.typed()) {
      return 0;
    }
    return format.format() == ColumnFormat.Format.PROTOBUF ? VERSION : 2;
  }

  /**
   * The version a segment of a table with these properties is typed with: its key's or its value's,
   * whichever is higher.
   */
  public static int versionForTable(Map<String, String> tableProperties) {
    return Math.max(
        versionFor(ColumnFormat.fromProperties(tableProperties, "key")),
        versionFor(ColumnFormat.fromProperties(tableProperties, "value")));
  }

  private final boolean evolves;
  private final String column;
  private final ColumnFormat format;
  private final WriterSchemas schemas;
  private final boolean protobuf;
  private final Type columnType;
  private final int valuePos;
  private final int schemaIdPos;
  private final int messagePos;
  private final int formPos;
  private final int statusPos;
  private final int reasonPos;
  private final int rawPos;
  private final Map<WriterKey, Writer> writers = new HashMap<>();
  private long ok;
  private long inexact;
  private long undecodable;

  /**
   * The codec of typed column {@code column} of rows of {@code rowType}, whose writer schemas come
   * from {@code schemas}.
   */
  public TypedValueCodec(
      Types.StructType rowType,
      String column,
      ColumnFormat format,
      WriterSchemas schemas,
      boolean evolves) {
    this.evolves = evolves;
    this.column = column;
    this.format = format;
    this.schemas = schemas;
    this.protobuf = format.format() == ColumnFormat.Format.PROTOBUF;
    Types.NestedField typed = rowType.field(column);
    this.columnType = typed == null ? null : typed.type();
    this.valuePos = typed == null ? -1 : RowCodec.positionOf(rowType, column);
    this.schemaIdPos = RowCodec.positionOf(rowType, TypedColumns.schemaId(column));
    this.messagePos = protobuf ? RowCodec.positionOf(rowType, TypedColumns.message(column)) : -1;
    // tables made before writer forms have no form column: their rows are all canonical
    this.formPos =
        rowType.field(TypedColumns.form(column)) == null
            ? -1
            : RowCodec.positionOf(rowType, TypedColumns.form(column));
    this.statusPos = RowCodec.positionOf(rowType, TypedColumns.status(column));
    this.reasonPos = RowCodec.positionOf(rowType, TypedColumns.reason(column));
    this.rawPos = RowCodec.positionOf(rowType, TypedColumns.raw(column));
  }

  @Override
  public void write(byte[] bytes, StructLike row) {
    if (bytes == null) {
      set(row, null, null, null, null, null, null);
      return;
    }
    Integer schemaId = null;
    List<Integer> indexes = null;
    try {
      int start = 0;
      if (format.source() == ColumnFormat.SchemaSource.WIRE) {
        WireFormat.Prefix prefix = WireFormat.read(bytes, protobuf);
        schemaId = prefix.schemaId();
        indexes = prefix.messageIndexes();
        start = prefix.payloadStart();
      } else {
        schemaId = schemas.latestId(format.subject());
        indexes = List.of();
      }
      WriterKey key = new WriterKey(schemaId, indexes);
      Writer writer = writer(key, true);
      Object value = writer.codec().decode(ByteBuffer.wrap(bytes, start, bytes.length - start));
      Integer form = formOf(value, writer, bytes, start);
      boolean exact = form != null;
      if (exact) {
        ok++;
      } else {
        inexact++;
      }
      set(
          row,
          value,
          schemaId,
          indexes,
          exact ? TypedColumns.STATUS_OK : TypedColumns.STATUS_INEXACT,
          exact ? null : "re-encoding the typed value gives other bytes",
          exact ? null : bytes);
      if (form != null && form > 0) {
        row.set(formPos, form);
      }
    } catch (UndecodablePayloadException | SchemaUnavailableException e) {
      undecodable++;
      set(row, null, schemaId, indexes, TypedColumns.STATUS_UNDECODABLE, e.getMessage(), bytes);
    }
  }

  @Override
  public byte[] read(StructLike row) {
    if (row.get(statusPos, String.class) == null) {
      return null;
    }
    ByteBuffer raw = row.get(rawPos, ByteBuffer.class);
    if (raw != null) {
      return RowCodec.bytes(raw);
    }
    int schemaId = row.get(schemaIdPos, Integer.class);
    List<Integer> indexes = protobuf ? messageOf(row) : List.of();
    try {
      WriterKey key = new WriterKey(schemaId, indexes);
      Writer writer = writer(key, false);
      Integer form = formPos >= 0 ? row.get(formPos, Integer.class) : null;
      Object value = row.get(valuePos, Object.class);
      PayloadCodec codec = writer.codec();
      return prefixed(
          writer.prefix(), form == null ? codec.encode(value) : codec.encode(value, form));
    } catch (SchemaUnavailableException e) {
      throw new IllegalStateException(
          "Cannot re-encode a typed " + column + " of writer schema " + schemaId, e);
    }
  }

  /**
   * The writer form whose encoding of {@code value} gives back {@code bytes} (0: the canonical
   * one), or null if none does. Other forms are tried only where the table records the form.
   */
  private Integer formOf(Object value, Writer writer, byte[] bytes, int payloadStart) {
    byte[] prefix = writer.prefix();
    if (!Arrays.equals(prefix, 0, prefix.length, bytes, 0, payloadStart)) {
      return null;
    }
    PayloadCodec codec = writer.codec();
    int forms = formPos >= 0 ? codec.forms() : 1;
    for (int form = 0; form < forms; form++) {
      if (codec.encodesTo(value, form, bytes, payloadStart, bytes.length)) {
        return form;
      }
    }
    return null;
  }

  /** The payloads {@link #write} stored so far, by status. */
  @Override
  public PayloadCounts counts() {
    return new PayloadCounts(ok, inexact, undecodable);
  }

  private Writer writer(WriterKey key, boolean copying) throws SchemaUnavailableException {
    Writer bound = writers.get(key);
    if (bound == null) {
      WriterSchema writer = schemas.writerSchema(key.schemaId(), key.messageIndexes());
      FieldPlacement placement = FieldPlacement.of(columnType, writer.icebergType());
      if (copying && (columnType == null || !TypeCoverage.covers(columnType, placement.placed()))) {
        if (evolves) {
          throw new SchemaEvolutionRequired(column, key.schemaId(), writer.icebergType());
        }
        throw new SchemaUnavailableException(
            "writer schema " + key.schemaId() + " is not in the table yet (typed once tiered)");
      }
      byte[] prefix =
          format.source() == ColumnFormat.SchemaSource.LATEST
              ? new byte[0]
              : WireFormat.prefix(key.schemaId(), key.messageIndexes(), protobuf);
      bound = new Writer(writer.bind(placement.view()), prefix);
      writers.put(key, bound);
    }
    return bound;
  }

  private static byte[] prefixed(byte[] prefix, byte[] payload) {
    if (prefix.length == 0) {
      return payload;
    }
    byte[] out = Arrays.copyOf(prefix, prefix.length + payload.length);
    System.arraycopy(payload, 0, out, prefix.length, payload.length);
    return out;
  }

  private List<Integer> messageOf(StructLike row) {
    @SuppressWarnings("unchecked")
    List<Integer> path = row.get(messagePos, List.class);
    return path == null ? List.of() : path;
  }

  private void set(
      StructLike row,
      Object value,
      Integer schemaId,
      List<Integer> indexes,
      String status,
      String reason,
      byte[] raw) {
    if (valuePos >= 0) {
      row.set(valuePos, value);
    }
    row.set(schemaIdPos, schemaId);
    if (messagePos >= 0) {
      // null: the first message as the wire format's single byte 0; [0] is the counted form
      row.set(messagePos, indexes == null || indexes.isEmpty() ? null : indexes);
    }
    if (formPos >= 0) {
      row.set(formPos, null);
    }
    row.set(statusPos, status);
    row.set(reasonPos, reason);
    row.set(rawPos, raw == null ? null : ByteBuffer.wrap(raw));
  }

  private record WriterKey(int schemaId, List<Integer> messageIndexes) {}

  /**
   * A writer schema bound to the column: its codec, and the wire-format prefix its payloads are
   * written with (none for the latest-schema source).
   */
  private record Writer(PayloadCodec codec, byte[] prefix) {}
}
