package io.floe.bench;

import io.floe.format.BatchHeader;
import io.floe.format.KafkaRecord;
import io.floe.layout.TypedColumns;
import io.floe.rows.ColumnCodec;
import io.floe.rows.RowCodec;
import io.floe.typed.ColumnFormat;
import io.floe.typed.FieldPlacement;
import io.floe.typed.InvalidSchemaException;
import io.floe.typed.PayloadCodec;
import io.floe.typed.SchemaFormats;
import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.WireFormat;
import io.floe.typed.WriterSchema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;

/**
 * Rows of a typed table as the Parquet floor makes them: Floe's row model for the Kafka columns and
 * the key, and each value decoded with its one writer schema into the value column, status "ok". No
 * lossless check (no re-encoding), no writer schema lookup per record, no form column: what any
 * writer that types registry payloads has to do at least.
 */
final class TypedFloorRows implements ParquetFloor.Rows {
  private static final String VALUE = "value";

  private final RowCodec metadata;
  private final PayloadCodec codec;
  private final int valuePos;
  private final int schemaIdPos;
  private final int statusPos;

  /** Rows of {@code table}, whose values are {@code format} payloads of schema {@code text}. */
  TypedFloorRows(Table table, ColumnFormat.Format format, String text)
      throws InvalidSchemaException {
    Schema schema = table.schema();
    // binary codecs put a null value in the typed value column, which the decoded value replaces
    this.metadata = new RowCodec(schema, ColumnCodec.BINARY, ColumnCodec.BINARY);
    WriterSchema writer = SchemaFormats.of(format).writerSchema(text, Map.of(), List.of());
    Type column = schema.findField(VALUE).type();
    this.codec = writer.bind(FieldPlacement.of(column, writer.icebergType()).view());
    this.valuePos = position(schema, VALUE);
    this.schemaIdPos = position(schema, TypedColumns.schemaId(VALUE));
    this.statusPos = position(schema, TypedColumns.status(VALUE));
  }

  @Override
  public Record toRow(int partition, BatchHeader header, KafkaRecord record) throws IOException {
    Record row =
        metadata.toRow(
            partition,
            header,
            new KafkaRecord(
                record.offset(), record.timestamp(), record.key(), null, record.headers()));
    byte[] value = record.value();
    try {
      WireFormat.Prefix prefix = WireFormat.read(value, false);
      int start = prefix.payloadStart();
      row.set(valuePos, codec.decode(ByteBuffer.wrap(value, start, value.length - start)));
      row.set(schemaIdPos, prefix.schemaId());
      row.set(statusPos, TypedColumns.STATUS_OK);
    } catch (UndecodablePayloadException e) {
      throw new IOException("the floor's workload has an undecodable value", e);
    }
    return row;
  }

  private static int position(Schema schema, String column) {
    return schema.asStruct().fields().indexOf(schema.findField(column));
  }
}
