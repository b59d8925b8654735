package io.floe.typed.json;

import static io.floe.typed.json.JsonFixtures.assertExact;
import static io.floe.typed.json.JsonFixtures.order;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.typed.PayloadCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/** Payloads of the common writers, in schema order, come back byte for byte. */
class JsonRoundTripTest {

  /** What JavaScript's JSON.stringify wrote for the object (node 22), every mapping set. */
  static final String JS_ORDER =
      "{\"id\":42,\"name\":\"Zoë \\\"Q\\\" <x> & y\\n\",\"score\":1e+21,\"active\":true,"
          + "\"born\":\"1990-05-17\",\"seen\":\"2024-01-31T10:15:30.123Z\",\"status\":\"DONE\","
          + "\"nickname\":\"zo\",\"rank\":7,\"address\":{\"city\":\"Zürich\",\"zip\":\"8001\"},"
          + "\"previous\":{\"line\":\"Main St 1\"},"
          + "\"customer\":{\"email\":\"z@example.com\",\"vip\":false},\"tags\":[\"a\",\"b\",\"\"],"
          + "\"scores\":{\"math\":1,\"art\":0.30000000000000004,\"tiny\":1e-7,\"neg\":-2.5},"
          + "\"lines\":[{\"sku\":\"X-1\",\"qty\":3},{\"sku\":\"Y-2\",\"qty\":-9007199254740991}],"
          + "\"extra\":17,\"anything\":{\"k\":[1,\"two\",null,{\"z\":true}]},\"kind\":\"order\","
          + "\"mixed\":3.25,\"tree\":{\"label\":\"root\",\"children\":[{\"label\":\"a\","
          + "\"children\":[]},{\"label\":\"b\"}]}}";

  static final String JS_NUMBERS =
      "{\"score\":5e-324,\"scores\":{\"a\":123456789012345680000,\"b\":0.000001,"
          + "\"c\":9007199254740992,\"d\":0,\"e\":0.1}}";

  private final PayloadCodec codec = order();

  static Map<String, Object> jacksonOrder() {
    Map<String, Object> order = new LinkedHashMap<>();
    order.put("id", Long.MAX_VALUE);
    order.put("name", "Zoë \"Q\" <x> & y\n\t\u0001\u001f\u2028 \\ / 日本 😀");
    order.put("score", 2.5);
    order.put("active", false);
    order.put("born", "0001-01-01");
    order.put("seen", "1969-12-31T23:59:59.999999Z");
    order.put("status", "NEW");
    order.put("nickname", "");
    order.put("rank", -1);
    order.put("address", Map.of("city", "Zürich"));
    order.put("previous", Map.of("line", "l"));
    order.put("customer", Map.of("vip", true));
    order.put("tags", List.of("x"));
    Map<String, Object> scores = new LinkedHashMap<>();
    scores.put("z", 0.125);
    scores.put("a", -1234.5);
    scores.put("m", null);
    order.put("scores", scores);
    order.put("lines", List.of(Map.of("qty", 0), Map.of("sku", "s")));
    order.put("extra", "text");
    order.put("anything", Arrays.asList(1, "two", null, Map.of("z", 1.5)));
    order.put("kind", "order");
    order.put("mixed", "3");
    Map<String, Object> leaf = new LinkedHashMap<>();
    leaf.put("label", "leaf");
    leaf.put("children", List.of());
    order.put("tree", Map.of("children", List.of(leaf)));
    return order;
  }

  @Test
  void jacksonWrittenPayloadsRoundTripExactly() throws Exception {
    String payload = new ObjectMapper().writeValueAsString(jacksonOrder());

    Record order = (Record) assertExact(codec, payload);

    assertThat(order.getField("id")).isEqualTo(Long.MAX_VALUE);
    assertThat(order.getField("name"))
        .isEqualTo("Zoë \"Q\" <x> & y\n\t\u0001\u001f\u2028 \\ / 日本 😀");
    assertThat(payload).contains("\\u001F");
    assertThat(order.getField("score")).isEqualTo(2.5);
    assertThat(order.getField("active")).isEqualTo(false);
    assertThat(order.getField("born")).isEqualTo(LocalDate.of(1, 1, 1));
    assertThat(order.getField("seen"))
        .isEqualTo(OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000, ZoneOffset.UTC));
    assertThat(order.getField("rank")).isEqualTo(-1L);
    assertThat(((Record) order.getField("address")).getField("city")).isEqualTo("Zürich");
    assertThat(((Record) order.getField("address")).getField("zip")).isNull();
    Map<String, Object> scores = new LinkedHashMap<>();
    scores.put("z", 0.125);
    scores.put("a", -1234.5);
    scores.put("m", null);
    assertThat(order.getField("scores")).isEqualTo(scores);
    assertThat(order.getField("anything")).isEqualTo("[1,\"two\",null,{\"z\":1.5}]");
    assertThat(order.getField("mixed")).isEqualTo("\"3\"");
    Record tree = (Record) order.getField("tree");
    assertThat(tree.getField("label")).isNull();
    assertThat(tree.getField("children"))
        .isEqualTo(List.of("{\"label\":\"leaf\",\"children\":[]}"));
  }

  @Test
  void javaScriptWrittenPayloadsRoundTripExactly() throws Exception {
    Record order = (Record) assertExact(codec, JS_ORDER);

    assertThat(order.getField("score")).isEqualTo(1e21);
    assertThat(order.getField("seen"))
        .isEqualTo(OffsetDateTime.of(2024, 1, 31, 10, 15, 30, 123_000_000, ZoneOffset.UTC));
    assertThat(order.getField("status")).isEqualTo("DONE");
    assertThat(((Record) order.getField("customer")).getField("vip")).isEqualTo(false);
    assertThat(((Record) order.getField("previous")).getField("line")).isEqualTo("Main St 1");
    assertThat(order.getField("tags")).isEqualTo(List.of("a", "b", ""));
    assertThat(List.copyOf(((Map<?, ?>) order.getField("scores")).keySet()))
        .isEqualTo(List.of("math", "art", "tiny", "neg"));
    assertThat(((Map<?, ?>) order.getField("scores")).get("art")).isEqualTo(0.1 + 0.2);
    Record line = (Record) ((List<?>) order.getField("lines")).get(1);
    assertThat(line.getField("qty")).isEqualTo(-9007199254740991L);
    assertThat(order.getField("extra")).isEqualTo("17");
    assertThat(order.getField("kind")).isEqualTo("\"order\"");
    assertThat(order.getField("mixed")).isEqualTo("3.25");

    Record numbers = (Record) assertExact(codec, JS_NUMBERS);
    assertThat(numbers.getField("score")).isEqualTo(Double.MIN_VALUE);
  }

  @Test
  void aPayloadInsideALargerBufferDecodesTheSame() throws Exception {
    byte[] payload = JS_ORDER.getBytes(StandardCharsets.UTF_8);
    byte[] framed = new byte[payload.length + 9];
    System.arraycopy(payload, 0, framed, 5, payload.length);
    ByteBuffer slice = ByteBuffer.wrap(framed, 5, payload.length).slice();
    ByteBuffer positioned = ByteBuffer.wrap(framed, 5, payload.length);
    ByteBuffer direct = ByteBuffer.allocateDirect(payload.length).put(payload).flip();

    for (ByteBuffer buffer : List.of(slice, positioned, direct)) {
      int position = buffer.position();
      assertThat(codec.encode(codec.decode(buffer))).isEqualTo(payload);
      assertThat(buffer.position()).isEqualTo(position);
    }
  }

  @Test
  void javaScriptNumbersFromNodeRoundTrip() throws Exception {
    PayloadCodec numbers = JsonFixtures.codec("{\"type\": \"number\"}");
    for (String line : JsNumbersTest.vectors()) {
      String js = line.substring(line.indexOf(' ') + 1);
      assertExact(numbers, js);
    }
  }

  @Test
  void rootScalarsAndNull() throws Exception {
    assertExact(JsonFixtures.codec("{\"type\": \"integer\"}"), "-9223372036854775808");
    assertExact(JsonFixtures.codec("{\"type\": \"string\"}"), "\"s\"");
    assertExact(JsonFixtures.codec("{\"type\": [\"string\", \"null\"]}"), "null");
    assertExact(JsonFixtures.codec("true"), "[1, 2 ,3]");
    assertExact(JsonFixtures.codec("true"), "-1.50E+07");
    assertExact(JsonFixtures.codec("true"), "\"\\u00e9\"");
  }
}
