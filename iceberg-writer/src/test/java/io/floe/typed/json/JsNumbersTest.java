package io.floe.typed.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsNumbersTest {

  /**
   * Lines "hex bits of a double, JSON.stringify of it", written by node running js-doubles.js
   * (random bit patterns, rounded and decimal-ish values, and edge cases).
   */
  static List<String> vectors() {
    return vectors("js-doubles.txt");
  }

  private static List<String> vectors(String name) {
    try (InputStream in = JsNumbersTest.class.getResourceAsStream(name)) {
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

  /**
   * Lines written by node running js-decimals.js: numbers with up to three decimals below and
   * around 2^31, and the next double after each.
   */
  @Test
  void numbersWithFewDecimalsAreWrittenAsJavaScriptWritesThem() {
    List<String> vectors = vectors("js-decimals.txt");
    assertThat(vectors).hasSizeGreaterThan(10_000);
    int plain = 0;
    for (String line : vectors) {
      String[] parts = line.split(" ");
      double value = Double.longBitsToDouble(Long.parseUnsignedLong(parts[0], 16));
      assertThat(JsNumbers.toString(value)).as(parts[0]).isEqualTo(parts[1]);
      plain += JsNumbers.fewDecimals(value) != null ? 1 : 0;
    }
    assertThat(plain).as("vectors written by the few-decimals path").isGreaterThan(5_000);
  }

  @Test
  void theFewDecimalsPathWritesWhatTheShortestDigitsGive() {
    Random rnd = new Random(5);
    long taken = 0;
    for (int i = 0; i < 2_000_000; i++) {
      double scale = Math.pow(10, i % 4);
      double magnitude = Math.pow(10, rnd.nextInt(11));
      double value =
          switch (i % 4) {
            case 0 -> Math.rint(rnd.nextDouble() * magnitude * scale) / scale;
            case 1 -> (rnd.nextDouble() - 0.5) * magnitude;
            case 2 -> Math.nextUp(Math.rint(rnd.nextDouble() * magnitude * scale) / scale);
            default -> rnd.nextInt() / scale;
          };
      if (value == 0) {
        continue;
      }
      String few = JsNumbers.fewDecimals(value);
      if (few != null) {
        taken++;
        assertThat(few).as("%s", value).isEqualTo(JsNumbers.shortest(value));
      }
    }
    assertThat(taken).isGreaterThan(900_000);
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
