package io.floe.typed.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsNumbersTest {

  /**
   * Lines "hex bits of a double, JSON.stringify of it", written by node running js-doubles.js
   * (random bit patterns, rounded and decimal-ish values, and edge cases).
   */
  static List<String> vectors() {
    try (InputStream in = JsNumbersTest.class.getResourceAsStream("js-doubles.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void doublesAreWrittenAsJavaScriptWritesThem() {
    List<String> vectors = vectors();
    assertThat(vectors).hasSizeGreaterThan(1000);
    for (String line : vectors) {
      String[] parts = line.split(" ");
      double value = Double.longBitsToDouble(Long.parseUnsignedLong(parts[0], 16));
      assertThat(JsNumbers.toString(value)).as(parts[0]).isEqualTo(parts[1]);
    }
  }

  @Test
  void edgeCases() {
    assertThat(JsNumbers.toString(0.0)).isEqualTo("0");
    assertThat(JsNumbers.toString(-0.0)).isEqualTo("0");
    assertThat(JsNumbers.toString(1.0)).isEqualTo("1");
    assertThat(JsNumbers.toString(-1.5)).isEqualTo("-1.5");
    assertThat(JsNumbers.toString(1e21)).isEqualTo("1e+21");
    assertThat(JsNumbers.toString(1e20)).isEqualTo("100000000000000000000");
    assertThat(JsNumbers.toString(1.5e21)).isEqualTo("1.5e+21");
    assertThat(JsNumbers.toString(1e-6)).isEqualTo("0.000001");
    assertThat(JsNumbers.toString(1e-7)).isEqualTo("1e-7");
    assertThat(JsNumbers.toString(1.25e-7)).isEqualTo("1.25e-7");
    assertThat(JsNumbers.toString(Double.MIN_VALUE)).isEqualTo("5e-324");
    assertThat(JsNumbers.toString(Double.MAX_VALUE)).isEqualTo("1.7976931348623157e+308");
    assertThat(JsNumbers.toString(0.1 + 0.2)).isEqualTo("0.30000000000000004");
    assertThat(JsNumbers.toString(123456789012345680000.0)).isEqualTo("123456789012345680000");
    assertThat(JsNumbers.toString(Double.NaN)).isEqualTo("null");
  }
}
