package io.floe.typed.avro;

import static io.floe.typed.avro.AvroFixtures.avroBytes;
import static io.floe.typed.avro.AvroFixtures.buffer;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import java.util.List;
import java.util.Random;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;

/**
 * Payloads with random bytes changed: each is undecodable, or its value encodes without failing to
 * canonical bytes that decode to the same canonical bytes again.
 */
class AvroCodecMutationTest {

  @Test
  void everyMutatedPayloadIsUndecodableOrReencodesStably() {
    AvroWriterSchema schema = AvroFixtures.everything();
    PayloadCodec codec = AvroFixtures.codec(schema);
    List<GenericData.Record> data = AvroFixtures.everythingData(schema.avroSchema());
    Random random = new Random(20261204L);
    int decodable = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] payload = avroBytes(schema.avroSchema(), data.get(i % data.size()));
      for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
        payload[random.nextInt(payload.length)] = (byte) random.nextInt(256);
      }
      if (assertStable(codec, payload)) {
        decodable++;
      }
    }
    assertThat(decodable).isPositive();
  }

  @Test
  void extremeTimestampsAreUndecodableOrReencodeStably() {
    for (String unit : List.of("timestamp-millis", "timestamp-nanos", "local-timestamp-nanos")) {
      PayloadCodec codec =
          AvroFixtures.codec(
              AvroFixtures.writerSchema("{\"type\":\"long\",\"logicalType\":\"" + unit + "\"}"));
      for (long value : new long[] {Long.MIN_VALUE, Long.MIN_VALUE + 999, Long.MAX_VALUE, -1}) {
        assertStable(codec, new AvroFixtures.Bytes().varint(value).toByteArray());
      }
    }
  }

  private static boolean assertStable(PayloadCodec codec, byte[] payload) {
    Object value;
    try {
      value = codec.decode(buffer(payload));
    } catch (UndecodablePayloadException e) {
      assertThat(e.getMessage()).isNotBlank();
      return false;
    }
    byte[] canonical = codec.encode(value);
    try {
      assertThat(codec.encode(codec.decode(buffer(canonical)))).isEqualTo(canonical);
    } catch (UndecodablePayloadException e) {
      throw new AssertionError("canonical bytes of a decoded value are undecodable", e);
    }
    return true;
  }
}
