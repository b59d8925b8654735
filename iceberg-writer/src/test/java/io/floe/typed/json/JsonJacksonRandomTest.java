package io.floe.typed.json;

import static io.floe.typed.json.JsonFixtures.assertExact;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.typed.PayloadCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random orders written by Jackson's default ObjectMapper in schema order come back exactly. */
class JsonJacksonRandomTest {

  private final Random random = new Random(20261204);
  private final ObjectMapper mapper = new ObjectMapper();

  private String string() {
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(8); i > 0; i--) {
      switch (random.nextInt(5)) {
        case 0:
          out.append((char) random.nextInt(0x20));
          break;
        case 1:
          out.appendCodePoint(0x10000 + random.nextInt(0x1000));
          break;
        case 2:
          out.append((char) (0x80 + random.nextInt(0xD000)));
          break;
        default:
          out.append((char) (0x20 + random.nextInt(0x60)));
      }
    }
    return out.toString();
  }

  /** A double Java and JavaScript print alike (Jackson writes Double.toString). */
  private double number() {
    while (true) {
      double value =
          random.nextBoolean()
              ? (random.nextInt(2_000_000) - 1_000_000) / 64.0
              : Double.longBitsToDouble(random.nextLong());
      if (Double.isFinite(value) && Double.toString(value).equals(JsNumbers.toString(value))) {
        return value;
      }
    }
  }

  private Map<String, Object> order() {
    Map<String, Object> order = new LinkedHashMap<>();
    order.put("id", random.nextLong());
    order.put("name", string());
    order.put("score", number());
    order.put("active", random.nextBoolean());
    order.put("born", LocalDate.ofEpochDay(random.nextInt(3_000_000) - 719_000).toString());
    Instant seen =
        Instant.ofEpochMilli(
            Math.floorMod(random.nextLong(), 250_000_000_000_000L) - 60_000_000_000_000L);
    order.put("seen", JsonDateTimes.format(seen.atOffset(ZoneOffset.UTC)));
    order.put("nickname", string());
    order.put("address", Map.of("zip", string()));
    List<Object> tags = new ArrayList<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      tags.add(random.nextInt(4) == 0 ? null : string());
    }
    order.put("tags", tags);
    Map<String, Object> scores = new LinkedHashMap<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      scores.put(string(), number());
    }
    order.put("scores", scores);
    order.put("anything", List.of(string(), random.nextInt(), Map.of("k", number())));
    return order;
  }

  @Test
  void randomJacksonOrdersRoundTripExactly() throws Exception {
    PayloadCodec codec = JsonFixtures.order();
    for (int i = 0; i < 500; i++) {
      Map<String, Object> order = order();
      String payload = mapper.writeValueAsString(order);
      assertThat(assertExact(codec, payload)).as(payload).isNotNull();
    }
  }
}
