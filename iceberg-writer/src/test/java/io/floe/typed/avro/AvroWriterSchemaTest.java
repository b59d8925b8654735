package io.floe.typed.avro;

import static io.floe.typed.avro.AvroFixtures.avroBytes;
import static io.floe.typed.avro.AvroFixtures.buffer;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.typed.PayloadCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Binding a writer schema to the column a table made by merging it with a later schema. */
class AvroWriterSchemaTest {
  private static final String V1 =
      """
      {"type": "record", "name": "Order", "fields": [
        {"name": "qty", "type": "int"},
        {"name": "ratio", "type": "float"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
          "precision": 5, "scale": 2}}]}
      """;
  private static final String V2 =
      """
      {"type": "record", "name": "Order", "fields": [
        {"name": "note", "type": ["null", "string"], "default": null},
        {"name": "qty", "type": "long"},
        {"name": "ratio", "type": "double"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal",
          "precision": 12, "scale": 2}}]}
      """;

  @Test
  void oldSchemaBindsToTheColumnMergedWithANewerOne() throws Exception {
    AvroWriterSchema v1 = AvroFixtures.writerSchema(V1);
    AvroWriterSchema v2 = AvroFixtures.writerSchema(V2);
    Type merged = mergedColumn(v1.icebergType(), v2.icebergType());
    assertThat(merged.asStructType().field("qty").type()).isEqualTo(Types.LongType.get());
    assertThat(merged.asStructType().field("ratio").type()).isEqualTo(Types.DoubleType.get());
    assertThat(merged.asStructType().field("amount").type()).isEqualTo(Types.DecimalType.of(12, 2));
    assertThat(merged.asStructType().field("note")).isNotNull();

    GenericData.Record datum = new GenericData.Record(v1.avroSchema());
    datum.put("qty", 7);
    datum.put("ratio", 0.3f);
    datum.put("amount", ByteBuffer.wrap(new byte[] {(byte) 0xcf, (byte) 0xc7})); // -123.45
    byte[] payload = avroBytes(v1.avroSchema(), datum);
    PayloadCodec codec = v1.bind(merged);

    Record value = (Record) codec.decode(buffer(payload));

    assertThat(value.getField("note")).isNull();
    assertThat(value.getField("qty")).isEqualTo(7L);
    assertThat(value.getField("ratio")).isEqualTo((double) 0.3f);
    assertThat(value.getField("amount")).isEqualTo(new BigDecimal("-123.45"));
    assertThat(codec.encode(value)).isEqualTo(payload);

    GenericData.Record newer = new GenericData.Record(v2.avroSchema());
    newer.put("note", "rush");
    newer.put("qty", 1L << 40);
    newer.put("ratio", 0.1);
    newer.put("amount", ByteBuffer.wrap(new byte[] {0x01, 0x00, 0x00, 0x00, 0x00}));
    byte[] newerPayload = avroBytes(v2.avroSchema(), newer);
    PayloadCodec newerCodec = v2.bind(merged);
    assertThat(newerCodec.encode(newerCodec.decode(buffer(newerPayload)))).isEqualTo(newerPayload);
  }

  /** The value column of a table made from {@code first}, then merged by name with {@code next}. */
  private static Type mergedColumn(Type first, Type next) {
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("memory", Map.of());
      catalog.createNamespace(Namespace.of("topics"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("topics", "orders"),
              new Schema(Types.NestedField.optional(1, "value", renumbered(first, 100))));
      table
          .updateSchema()
          .unionByNameWith(
              new Schema(Types.NestedField.optional(1, "value", renumbered(next, 200))))
          .commit();
      return table.schema().findField("value").type();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Type renumbered(Type type, int from) {
    int[] next = {from};
    return TypeUtil.assignFreshIds(
            new Schema(Types.NestedField.optional(10_000, "x", type)), () -> next[0]++)
        .findField("x")
        .type();
  }
}
