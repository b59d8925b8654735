package io.floe.typed.json;

import static io.floe.typed.json.JsonFixtures.codec;
import static io.floe.typed.json.JsonFixtures.decode;
import static io.floe.typed.json.JsonFixtures.encode;
import static io.floe.typed.json.JsonFixtures.order;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.typed.PayloadCodec;
import io.floe.typed.UndecodablePayloadException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/** Payloads of other writers decode to the right value and re-encode differently. */
class JsonNonCanonicalTest {

  private final PayloadCodec order = order();

  /** Decodes the payload, asserts it re-encodes to {@code canonical} (not the payload). */
  private Record assertInexact(String payload, String canonical) throws Exception {
    Object value = decode(order, payload);
    assertThat(encode(order, value)).isEqualTo(canonical).isNotEqualTo(payload);
    assertThat(encode(order, decode(order, canonical))).isEqualTo(canonical);
    return (Record) value;
  }

  @Test
  void pythonSpacing() throws Exception {
    Record value =
        assertInexact(
            "{\"id\": 1, \"name\": \"x\", \"tags\": [\"a\", \"b\"], \"address\": {\"city\": \"c\"}}",
            "{\"id\":1,\"name\":\"x\",\"address\":{\"city\":\"c\"},\"tags\":[\"a\",\"b\"]}");
    assertThat(value.getField("tags")).isEqualTo(List.of("a", "b"));
  }

  @Test
  void escapesOfNonAsciiAndHtmlCharacters() throws Exception {
    assertThat(assertInexact("{\"name\":\"caf\\u00e9\"}", "{\"name\":\"café\"}").getField("name"))
        .isEqualTo("café");
    assertThat(
            assertInexact("{\"name\":\"a\\u003cb\\u003e\\u0026c\"}", "{\"name\":\"a<b>&c\"}")
                .getField("name"))
        .isEqualTo("a<b>&c");
    assertThat(assertInexact("{\"name\":\"\\ud83d\\ude00\"}", "{\"name\":\"😀\"}").getField("name"))
        .isEqualTo("😀");
    assertThat(assertInexact("{\"name\":\"\\/\"}", "{\"name\":\"/\"}").getField("name"))
        .isEqualTo("/");
    // JSON.stringify writes lower-case hex; the canonical form is Jackson's upper case
    assertThat(assertInexact("{\"name\":\"\\u001f\"}", "{\"name\":\"\\u001F\"}").getField("name"))
        .isEqualTo("\u001f");
  }

  @Test
  void anUnpairedSurrogateIsStoredAsUtf8WouldStoreIt() throws Exception {
    assertThat(assertInexact("{\"name\":\"a\\ud800b\"}", "{\"name\":\"a?b\"}").getField("name"))
        .isEqualTo("a?b");
  }

  @Test
  void otherNumberForms() throws Exception {
    assertThat(assertInexact("{\"score\":1.10}", "{\"score\":1.1}").getField("score"))
        .isEqualTo(1.1);
    assertThat(assertInexact("{\"score\":1E5}", "{\"score\":100000}").getField("score"))
        .isEqualTo(1e5);
    assertThat(assertInexact("{\"score\":1.0}", "{\"score\":1}").getField("score")).isEqualTo(1.0);
    assertThat(assertInexact("{\"score\":1.0E21}", "{\"score\":1e+21}").getField("score"))
        .isEqualTo(1e21);
    assertThat(assertInexact("{\"score\":-0}", "{\"score\":0}").getField("score")).isEqualTo(-0.0);
    assertThat(assertInexact("{\"id\":-0}", "{\"id\":0}").getField("id")).isEqualTo(0L);
    assertThat(assertInexact("{\"id\":1E5}", "{\"id\":100000}").getField("id")).isEqualTo(100000L);
    assertThat(assertInexact("{\"id\":2.50e1}", "{\"id\":25}").getField("id")).isEqualTo(25L);
    assertThat(
            assertInexact("{\"score\":0.1000000000000000055511151231257827}", "{\"score\":0.1}")
                .getField("score"))
        .isEqualTo(0.1);
  }

  @Test
  void jacksonDoublesWithWholeValuesOrExponentsAreNotCanonical() throws Exception {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("score", 3.0);
    value.put("scores", Map.of("big", 1.0e7));
    String payload = new ObjectMapper().writeValueAsString(value);

    assertThat(payload).isEqualTo("{\"score\":3.0,\"scores\":{\"big\":1.0E7}}");
    assertInexact(payload, "{\"score\":3,\"scores\":{\"big\":10000000}}");
  }

  @Test
  void jacksonBytesEscapeCharactersBeyondTheBasicPlane() throws Exception {
    byte[] payload = new ObjectMapper().writeValueAsBytes(Map.of("name", "😀"));

    assertThat(new String(payload, StandardCharsets.UTF_8))
        .isEqualTo("{\"name\":\"\\uD83D\\uDE00\"}");
    assertThat(
            assertInexact(new String(payload, StandardCharsets.UTF_8), "{\"name\":\"😀\"}")
                .getField("name"))
        .isEqualTo("😀");
  }

  @Test
  void propertyOrderDuplicatesUndeclaredAndNulls() throws Exception {
    assertThat(
            assertInexact("{\"name\":\"x\",\"id\":1}", "{\"id\":1,\"name\":\"x\"}").getField("id"))
        .isEqualTo(1L);
    assertThat(assertInexact("{\"id\":1,\"id\":2}", "{\"id\":2}").getField("id")).isEqualTo(2L);
    assertThat(assertInexact("{\"id\":1,\"zzz\":{\"a\":[1]}}", "{\"id\":1}").getField("id"))
        .isEqualTo(1L);
    Record nulls = assertInexact("{\"id\":1,\"name\":null,\"tags\":null}", "{\"id\":1}");
    assertThat(nulls.getField("name")).isNull();
    Map<String, Object> scores = new LinkedHashMap<>();
    scores.put("a", 3.0);
    scores.put("b", 2.0);
    assertThat(
            assertInexact(
                    "{\"scores\":{\"a\":1,\"b\":2,\"a\":3}}", "{\"scores\":{\"a\":3,\"b\":2}}")
                .getField("scores"))
        .isEqualTo(scores);
    assertInexact(" {\"id\":1}\n", "{\"id\":1}");
    PayloadCodec text = codec("true");
    assertThat(encode(text, decode(text, " 12 "))).isEqualTo("12");
    assertThat(encode(text, decode(text, "\t[1 ]\r\n"))).isEqualTo("[1 ]");
  }

  @Test
  void otherDateTimeForms() throws Exception {
    OffsetDateTime instant = OffsetDateTime.of(2024, 1, 31, 9, 15, 30, 0, ZoneOffset.UTC);
    assertThat(
            assertInexact(
                    "{\"seen\":\"2024-01-31T10:15:30+01:00\"}",
                    "{\"seen\":\"2024-01-31T09:15:30.000Z\"}")
                .getField("seen"))
        .isEqualTo(instant);
    assertInexact("{\"seen\":\"2024-01-31T09:15:30Z\"}", "{\"seen\":\"2024-01-31T09:15:30.000Z\"}");
    assertInexact(
        "{\"seen\":\"2024-01-31t09:15:30.1234567z\"}",
        "{\"seen\":\"2024-01-31T09:15:30.123456Z\"}");
    // Iceberg's writer stores microseconds since the epoch rounded toward zero
    assertInexact(
        "{\"seen\":\"1969-12-31T23:59:59.9999999Z\"}", "{\"seen\":\"1970-01-01T00:00:00.000Z\"}");
    assertInexact(
        "{\"seen\":\"1969-12-31T23:59:59.9999989Z\"}",
        "{\"seen\":\"1969-12-31T23:59:59.999999Z\"}");
  }

  @Test
  void jsonTextIsKeptAsWrittenInsideAndCanonicalAround() throws Exception {
    Record value =
        assertInexact(
            "{\"anything\": {\"b\" : [1.50, \"\\u00e9\"] }}",
            "{\"anything\":{\"b\" : [1.50, \"\\u00e9\"] }}");
    assertThat(value.getField("anything")).isEqualTo("{\"b\" : [1.50, \"\\u00e9\"] }");
    PayloadCodec text = codec("{\"type\": \"object\", \"properties\": {\"v\": {}}}");
    for (String v : List.of("\"a\\\"b\"", "-1.5e+07", "true", "false", "[]", "{}", "[[{}]]")) {
      String payload = "{\"v\":" + v + "}";
      assertThat(encode(text, decode(text, payload))).isEqualTo(payload);
      assertThat(((Record) decode(text, payload)).getField("v")).isEqualTo(v);
    }
  }

  @Test
  void undecodablePayloadsSayWhyWithoutThePayload() {
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("secret", "not JSON");
    cases.put("", "no value");
    cases.put("{\"id\":1} {\"id\":2}", "more after the value");
    cases.put("{\"id\":\"secret\"}", "at /id: expected an integer, found a string");
    cases.put("{\"id\":1.5}", "at /id: a number with a fraction");
    cases.put("{\"id\":12345678901234567890}", "at /id: an integer beyond the range of long");
    cases.put("{\"id\":1e30}", "at /id: an integer beyond the range of long");
    cases.put("{\"score\":1e400}", "at /score: a number beyond the range of double");
    cases.put("{\"score\":\"1\"}", "at /score: expected a number, found a string");
    cases.put("{\"active\":1}", "at /active: expected a boolean");
    cases.put("{\"born\":\"1990-02-30\"}", "at /born: a string that is not a date");
    cases.put("{\"seen\":\"2024-01-31 10:00:00Z\"}", "at /seen: a string that is not an RFC 3339");
    cases.put("{\"tags\":\"secret\"}", "at /tags: expected an array, found a string");
    cases.put("{\"lines\":[{},{\"qty\":true}]}", "at /lines/1/qty: expected an integer");
    cases.put("{\"scores\":{\"secret\":[]}}", "at /scores/*: expected a number, found an array");
    cases.put("{\"address\":[]}", "at /address: expected an object, found an array");
    cases.put("{\"id\":NaN}", "not JSON");
    cases.put("{\"name\":\"secret", "not JSON");
    for (Map.Entry<String, String> each : cases.entrySet()) {
      assertThatThrownBy(() -> decode(order, each.getKey()))
          .as(each.getKey())
          .isInstanceOf(UndecodablePayloadException.class)
          .hasMessageContaining(each.getValue())
          .message()
          .doesNotContain("secret");
    }
    byte[] badUtf8 = {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC3, '"', '}'};
    assertThatThrownBy(() -> order.decode(ByteBuffer.wrap(badUtf8)))
        .isInstanceOf(UndecodablePayloadException.class);
  }
}
