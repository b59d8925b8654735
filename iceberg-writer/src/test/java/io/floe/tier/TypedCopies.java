package io.floe.tier;

import io.floe.commit.SegmentCommitter;
import io.floe.format.RecordBatch;
import io.floe.format.Reencoding;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.TypedColumns;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.TableCodecs;
import io.floe.testing.Batches;
import io.floe.typed.SchemaLookup;
import io.floe.typed.SchemaText;
import io.floe.typed.SchemaUnavailableException;
import io.floe.typed.TypedRules;
import io.floe.typed.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.data.Record;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * What the typed copy tests share: topics {@code orders.*} whose values are typed, a registry held
 * in a map, records in the wire format, and the check that fetch serves a segment exactly.
 */
final class TypedCopies {
  private TypedCopies() {}

  /** Options whose rule types the values of topics {@code orders.*} in {@code format}. */
  static TopicTableOptions typedValues(String format) {
    Map<String, String> rules =
        Map.of(
            "types.rules", "orders",
            "types.rule.orders.topics", "orders\\..*",
            "types.rule.orders.value.format", format);
    return TopicTableOptions.builder()
        .typedRules(
            new TypedRules(new AbstractConfig(TypedRules.define(new ConfigDef()), rules), ""))
        .build();
  }

  static TieredSegments segments(TopicTables tables, TableCodecs codecs) {
    return new TieredSegments(
        tables,
        new SegmentCommitter(),
        BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
        Reencoding.CURRENT,
        codecs);
  }

  /** A registry of the schemas in {@code registry} (read at each call), counting its calls. */
  static SchemaLookup registry(Map<Integer, SchemaText> registry, AtomicInteger calls) {
    return new SchemaLookup() {
      @Override
      public SchemaText byId(int schemaId) throws SchemaUnavailableException {
        calls.incrementAndGet();
        SchemaText text = registry.get(schemaId);
        if (text == null) {
          throw new SchemaUnavailableException("schema " + schemaId + " is not in the registry");
        }
        return text;
      }

      @Override
      public int latestId(String subject) throws SchemaUnavailableException {
        throw new SchemaUnavailableException("no subject " + subject);
      }
    };
  }

  /** Fetch of the whole segment, with no registry, gives back the log's batches exactly. */
  static void assertServedExactly(TopicTables tables, SegmentKey key, Path log) throws Exception {
    List<RecordBatch> served;
    try (InputStream in = segments(tables, TableCodecs.withoutRegistry()).open(key).fetch(0)) {
      served = Batches.read(in);
    }
    Batches.assertSameBatches(Batches.read(log), served);
  }

  /** {@code payload} behind the registry's wire-format prefix for schema {@code id}. */
  static byte[] wire(int id, byte[] payload) {
    byte[] prefix = WireFormat.prefix(id, List.of(), false);
    byte[] out = Arrays.copyOf(prefix, prefix.length + payload.length);
    System.arraycopy(payload, 0, out, prefix.length, payload.length);
    return out;
  }

  /** The record as Avro's Java writer encodes it. */
  static byte[] avro(Schema schema, GenericRecord record) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  /** The rows' {@code value} statuses, in order. */
  static List<String> statuses(List<Record> rows) {
    return column(rows, TypedColumns.status("value")).stream().map(String.class::cast).toList();
  }

  /** The rows' values of top-level column {@code name}, in order (nulls kept). */
  static List<Object> column(List<Record> rows, String name) {
    List<Object> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.getField(name)));
    return out;
  }

  /** {@code n} null keys (or values). */
  static List<byte[]> nulls(int n) {
    return Arrays.asList(new byte[n][]);
  }
}
