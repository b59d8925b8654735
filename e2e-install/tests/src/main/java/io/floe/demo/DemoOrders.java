package io.floe.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The demo's orders: Avro records in the schema registry's wire format, as Confluent's serializers
 * write them (magic byte 0, the 4-byte schema id, Avro's binary encoding), deterministic in the
 * order number so every reader can check each one. Version 2 of the schema adds an optional coupon.
 */
final class DemoOrders {
  static final String SUBJECT = Demo.TOPIC + "-value";
  static final Schema V1 = new Schema.Parser().parse(schema(""));
  static final Schema V2 =
      new Schema.Parser()
          .parse(schema(",{\"name\":\"coupon\",\"type\":[\"null\",\"string\"],\"default\":null}"));

  private static final String[] CUSTOMERS = {
    "acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne"
  };
  private static final String[] ITEMS = {
    "anchor", "rope", "sail", "compass", "lantern", "oar", "buoy", "chart"
  };

  private DemoOrders() {}

  private static String schema(String moreFields) {
    return "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"demo.shop\",\"fields\":["
        + "{\"name\":\"order_id\",\"type\":\"long\"},"
        + "{\"name\":\"customer\",\"type\":\"string\"},"
        + "{\"name\":\"item\",\"type\":\"string\"},"
        + "{\"name\":\"quantity\",\"type\":\"int\"},"
        + "{\"name\":\"amount\",\"type\":\"double\"},"
        + "{\"name\":\"note\",\"type\":\"string\"}"
        + moreFields
        + "]}";
  }

  /** Order {@code i} with schema {@code schema} (V2 orders with an even number carry a coupon). */
  static GenericRecord order(Schema schema, int i) {
    Random r = new Random(i);
    StringBuilder note = new StringBuilder();
    for (int k = 0; k < 12; k++) {
      note.append(Integer.toHexString(r.nextInt()));
    }
    GenericRecord order = new GenericData.Record(schema);
    order.put("order_id", (long) i);
    order.put("customer", CUSTOMERS[r.nextInt(CUSTOMERS.length)]);
    order.put("item", ITEMS[r.nextInt(ITEMS.length)]);
    order.put("quantity", 1 + r.nextInt(20));
    order.put("amount", r.nextInt(100_000) / 100.0);
    order.put("note", note.toString());
    if (schema.getField("coupon") != null) {
      order.put("coupon", coupon(i));
    }
    return order;
  }

  /** The coupon of a V2 order: every other one has one. */
  static String coupon(int i) {
    return i % 2 == 0 ? "SPRING-" + (i % 7) : null;
  }

  static String customer(int i) {
    return order(V1, i).get("customer").toString();
  }

  /** Order {@code i} in the wire format with the registry's id of {@code schema}. */
  static byte[] wire(Schema schema, int schemaId, int i) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(0);
      out.write(
          new byte[] {
            (byte) (schemaId >>> 24),
            (byte) (schemaId >>> 16),
            (byte) (schemaId >>> 8),
            (byte) schemaId
          });
      BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema).write(order(schema, i), encoder);
      encoder.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
