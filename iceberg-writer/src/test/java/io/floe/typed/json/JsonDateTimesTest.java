package io.floe.typed.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The date-time parser agrees with {@code DateTimeFormatter.ISO_OFFSET_DATE_TIME} behind an RFC
 * 3339 pattern (what Floe used before) on every string: valid ones, edge values, and random
 * mutations.
 */
class JsonDateTimesTest {
  private static final Pattern RFC_3339 =
      Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})");
  private static final OffsetDateTime EPOCH =
      OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  @Test
  void edgeCasesParseAsTheFormatterDoes() {
    for (String text :
        List.of(
            "2024-01-31T10:00:00.000Z",
            "2024-01-31t10:00:00z",
            "2024-01-31T10:00:00.1+01:00",
            "2024-01-31T10:00:00.123456789-05:30",
            "2024-01-31T10:00:00.1234567891Z",
            "2024-01-31T10:00:00.Z",
            "2024-02-29T23:59:59Z",
            "2023-02-29T23:59:59Z",
            "2024-04-31T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T23:60:00Z",
            "2024-01-01T23:59:60Z",
            "2024-01-01T00:00:00+18:00",
            "2024-01-01T00:00:00+18:01",
            "2024-01-01T00:00:00-19:00",
            "2024-01-01T00:00:00+01:60",
            "2024-01-01T00:00:00-00:00",
            "2024-01-01T00:00:00+0100",
            "2024-01-01T00:00:00",
            "2024-01-01 00:00:00Z",
            "0000-01-01T00:00:00Z",
            "0000-01-01T00:00:00+00:01",
            "9999-12-31T23:59:59.999999999Z",
            "9999-12-31T23:59:59-01:00",
            "1969-12-31T23:59:59.9999995Z",
            "1969-12-31T23:59:59.0000001Z",
            "+2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00Z ",
            "٢٠٢٤-01-01T00:00:00Z",
            "")) {
      assertThat(JsonDateTimes.dateTime(text)).as(text).isEqualTo(reference(text));
    }
  }

  @Test
  void randomStringsParseAsTheFormatterDoes() {
    Random random = new Random(405);
    String alphabet = "0123456789-:T.Zz+t ";
    int valid = 0;
    for (int i = 0; i < 200_000; i++) {
      StringBuilder text =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%04d-%02d-%02dT%02d:%02d:%02d",
                  random.nextInt(10_000),
                  random.nextInt(14),
                  random.nextInt(33),
                  random.nextInt(26),
                  random.nextInt(62),
                  random.nextInt(62)));
      if (random.nextBoolean()) {
        String fraction = String.format(Locale.ROOT, "%019d", random.nextLong() & Long.MAX_VALUE);
        text.append('.').append(fraction, 0, 1 + random.nextInt(10));
      }
      switch (random.nextInt(3)) {
        case 0 -> text.append('Z');
        case 1 ->
            text.append(random.nextBoolean() ? '+' : '-')
                .append(
                    String.format(
                        Locale.ROOT, "%02d:%02d", random.nextInt(20), random.nextInt(62)));
        default -> {}
      }
      int mutations = random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0;
      for (int m = 0; m < mutations && text.length() > 0; m++) {
        int at = random.nextInt(text.length());
        switch (random.nextInt(3)) {
          case 0 -> text.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
          case 1 -> text.deleteCharAt(at);
          default -> text.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
        }
      }
      String s = text.toString();
      OffsetDateTime expected = reference(s);
      valid += expected == null ? 0 : 1;
      assertThat(JsonDateTimes.dateTime(s)).as(s).isEqualTo(expected);
    }
    assertThat(valid).as("enough valid date-times among the random strings").isGreaterThan(20_000);
  }

  /** Floe's parser before: the pattern, then the formatter, then microseconds toward zero. */
  private static OffsetDateTime reference(String text) {
    if (!RFC_3339.matcher(text).matches()) {
      return null;
    }
    OffsetDateTime parsed;
    try {
      parsed =
          OffsetDateTime.parse(
              text.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    } catch (DateTimeException e) {
      return null;
    }
    OffsetDateTime stored = EPOCH.plus(ChronoUnit.MICROS.between(EPOCH, parsed), ChronoUnit.MICROS);
    return stored.getYear() < 0 || stored.getYear() > 9999 ? null : stored;
  }
}
