package io.floe.typed.json;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;

/**
 * Doubles as JavaScript's {@code Number.prototype.toString} writes them (ECMA-262
 * Number::toString): the shortest digits that read back as the same double (the closest of them),
 * plain notation for exponents from -7 to 20, else {@code 1.5e+21} / {@code 1e-7}; zero and
 * negative zero are {@code 0}. Not finite values never come from JSON; they are written as {@code
 * null}, as {@code JSON.stringify} does.
 */
final class JsNumbers {
  /** Below this magnitude, {@link #fewDecimals} needs no more than a double's precision. */
  private static final double FEW_DECIMALS_LIMIT = 0x1p31;

  private static final double[] POWERS_OF_TEN = {1, 10, 100, 1000};

  private JsNumbers() {}

  static String toString(double value) {
    if (value == 0) {
      return "0";
    }
    if (!Double.isFinite(value)) {
      return "null";
    }
    String few = fewDecimals(value);
    return few != null ? few : shortest(value);
  }

  /** {@link #toString(double)} of a finite value other than zero, by Java's shortest digits. */
  static String shortest(double value) {
    // Jackson's Schubfach writer gives the shortest digits, in Java's layout (1.0E21, 0.001, 12.5)
    String java = NumberOutput.toString(value, true);
    boolean negative = java.charAt(0) == '-';
    int e = java.indexOf('E');
    String mantissa = java.substring(negative ? 1 : 0, e < 0 ? java.length() : e);
    int exponent = e < 0 ? 0 : Integer.parseInt(java.substring(e + 1));
    int dot = mantissa.indexOf('.');
    String whole = dot < 0 ? mantissa : mantissa.substring(0, dot);
    String digits = dot < 0 ? mantissa : whole + mantissa.substring(dot + 1);
    // value = 0.digits * 10^point
    int point = whole.length() + exponent;
    int first = 0;
    while (first < digits.length() - 1 && digits.charAt(first) == '0') {
      first++;
      point--;
    }
    int last = digits.length();
    while (last > first + 1 && digits.charAt(last - 1) == '0') {
      last--;
    }
    digits = digits.substring(first, last);
    if (digits.length() == 2) {
      // Java prefers two digits closer to the value where one digit also reads back; JS takes one
      String one = oneDigit(Math.abs(value), digits, point);
      if (one != null) {
        point += one.length() - 1;
        digits = one.substring(0, 1);
      }
    }
    String text = layout(digits, point);
    return negative ? "-" + text : text;
  }

  /**
   * The value in plain notation when it is an integer or has at most three decimals, as most
   * numbers in JSON records are (amounts, counts, coordinates): the fewest decimals {@code s} for
   * which {@code k / 10^s}, {@code k} the nearest integer to {@code value * 10^s}, reads back as
   * the value. Below 2^31 a double's spacing is under 10^-6, so at most one {@code k} per {@code s}
   * reads back and the product is off by far less than 1/2: that {@code k} is the shortest digits
   * JavaScript writes, in the plain notation it uses for these magnitudes. Null for other values.
   */
  static String fewDecimals(double value) {
    if (!(Math.abs(value) < FEW_DECIMALS_LIMIT)) {
      return null;
    }
    for (int s = 0; s < POWERS_OF_TEN.length; s++) {
      double k = Math.rint(value * POWERS_OF_TEN[s]);
      if (k / POWERS_OF_TEN[s] == value) {
        return s == 0 ? Long.toString((long) k) : plain((long) k, s);
      }
    }
    return null;
  }

  /** {@code k / 10^decimals} in plain notation with exactly {@code decimals} decimals. */
  private static String plain(long k, int decimals) {
    String digits = Long.toString(Math.abs(k));
    StringBuilder text = new StringBuilder(digits.length() + decimals + 2);
    if (k < 0) {
      text.append('-');
    }
    int whole = digits.length() - decimals;
    if (whole <= 0) {
      text.append("0.");
      text.append("0".repeat(-whole));
      text.append(digits);
    } else {
      text.append(digits, 0, whole).append('.').append(digits, whole, digits.length());
    }
    return text.toString();
  }

  /**
   * Doubles as Java writes them ({@code Double.toString} since Java 19, Jackson's default): the
   * shortest digits, plain notation from 0.001 up to 10^7 with at least one decimal ({@code 12.0}),
   * else {@code 1.0E7} / {@code 1.5E-4}; {@code 0.0} and {@code -0.0}. Not finite values are {@code
   * null}, as in {@link #toString(double)}.
   */
  static String javaForm(double value) {
    return Double.isFinite(value) ? NumberOutput.toString(value, true) : "null";
  }

  /**
   * The one-digit decimal that reads back as {@code value} (the closer of the two around it), with
   * a trailing 0 when rounding up carried into a new digit; null when there is none.
   */
  private static String oneDigit(double value, String digits, int point) {
    int low = digits.charAt(0) - '0';
    String lowText = low + "e" + (point - 1);
    String highText = (low + 1) + "e" + (point - 1);
    boolean lowReads = low > 0 && Double.parseDouble(lowText) == value;
    boolean highReads = Double.parseDouble(highText) == value;
    if (!lowReads && !highReads) {
      return null;
    }
    boolean high = highReads;
    if (lowReads && highReads) {
      BigDecimal exact = new BigDecimal(value);
      int byLow =
          exact
              .subtract(new BigDecimal(lowText))
              .compareTo(new BigDecimal(highText).subtract(exact));
      high = byLow > 0 || (byLow == 0 && low % 2 == 1);
    }
    if (!high) {
      return String.valueOf(low);
    }
    return low + 1 == 10 ? "10" : String.valueOf(low + 1);
  }

  /** ECMA-262 Number::toString for digits d1..dk and value 0.d1..dk * 10^point. */
  private static String layout(String digits, int point) {
    int k = digits.length();
    if (k <= point && point <= 21) {
      return digits + "0".repeat(point - k);
    }
    if (0 < point && point <= 21) {
      return digits.substring(0, point) + "." + digits.substring(point);
    }
    if (-6 < point && point <= 0) {
      return "0." + "0".repeat(-point) + digits;
    }
    int exponent = point - 1;
    String sign = exponent < 0 ? "-" : "+";
    String mantissa = k == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    return mantissa + "e" + sign + Math.abs(exponent);
  }
}
