package io.floe.typed.json;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * {@code format: date} and {@code format: date-time} strings (RFC 3339) to Iceberg dates and
 * timestamps with zone, and back in one canonical form: {@code 2024-01-31} and {@code
 * 2024-01-31T10:00:00.000Z}, UTC, milliseconds or (when the value has them) microseconds, as
 * JavaScript's {@code Date.toISOString} writes them for milliseconds. Any other offset or precision
 * decodes to the same instant (sub-microsecond digits dropped, as the table would drop them) and
 * re-encodes differently, so the record keeps its bytes.
 */
final class JsonDateTimes {

  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  private static final OffsetDateTime EPOCH =
      OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  private JsonDateTimes() {}

  /** The date, or null if the text is not an RFC 3339 full-date. */
  static LocalDate date(String text) {
    if (!DATE.matcher(text).matches()) {
      return null;
    }
    try {
      return LocalDate.parse(text, DateTimeFormatter.ISO_LOCAL_DATE);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The instant at UTC in whole microseconds, or null if the text is not one in years 0-9999. */
  static OffsetDateTime dateTime(String text) {
    OffsetDateTime parsed = parseDateTime(text);
    if (parsed == null) {
      return null;
    }
    OffsetDateTime stored;
    if (parsed.getNano() % 1000 == 0) {
      stored = parsed.withOffsetSameInstant(ZoneOffset.UTC);
    } else {
      // as Iceberg's writer stores it: microseconds since the epoch, rounded toward zero
      stored = EPOCH.plus(ChronoUnit.MICROS.between(EPOCH, parsed), ChronoUnit.MICROS);
    }
    return stored.getYear() < 0 || stored.getYear() > 9999 ? null : stored;
  }

  /**
   * RFC 3339's date-time ({@code 2024-01-31T10:00:00.123+01:00}, {@code T} and {@code Z} in either
   * case, up to nine fraction digits), parsed by position: about ten times cheaper than a regular
   * expression and {@code DateTimeFormatter}, which a typed JSON copy paid for every timestamp.
   */
  private static OffsetDateTime parseDateTime(String text) {
    if (!hasSeparators(text)) {
      return null;
    }
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 2);
    int day = digits(text, 8, 2);
    int hour = digits(text, 11, 2);
    int minute = digits(text, 14, 2);
    int second = digits(text, 17, 2);
    int end = fractionEnd(text);
    ZoneOffset offset = end < 0 ? null : offset(text, end);
    if (offset == null || (year | month | day | hour | minute | second) < 0) {
      return null;
    }
    int nano = 0;
    if (end > 19) {
      nano = digits(text, 20, end - 20);
      for (int i = end - 20; i < 9; i++) {
        nano *= 10;
      }
    }
    try {
      return OffsetDateTime.of(year, month, day, hour, minute, second, nano, offset);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static boolean hasSeparators(String text) {
    return text.length() >= 20
        && text.charAt(4) == '-'
        && text.charAt(7) == '-'
        && (text.charAt(10) == 'T' || text.charAt(10) == 't')
        && text.charAt(13) == ':'
        && text.charAt(16) == ':';
  }

  /** Where the seconds' fraction ({@code .} and one to nine digits) ends: 19 with none, -1 bad. */
  private static int fractionEnd(String text) {
    if (text.charAt(19) != '.') {
      return 19;
    }
    int at = 20;
    while (at < text.length() && at < 30 && isDigit(text.charAt(at))) {
      at++;
    }
    int count = at - 20;
    return count < 1 || count > 9 ? -1 : at;
  }

  private static ZoneOffset offset(String text, int at) {
    int rest = text.length() - at;
    char sign = rest > 0 ? text.charAt(at) : 0;
    if (rest == 1 && (sign == 'Z' || sign == 'z')) {
      return ZoneOffset.UTC;
    }
    if (rest != 6 || (sign != '+' && sign != '-') || text.charAt(at + 3) != ':') {
      return null;
    }
    int hours = digits(text, at + 1, 2);
    int minutes = digits(text, at + 4, 2);
    if ((hours | minutes) < 0 || minutes > 59) {
      return null;
    }
    try {
      return sign == '+'
          ? ZoneOffset.ofHoursMinutes(hours, minutes)
          : ZoneOffset.ofHoursMinutes(-hours, -minutes);
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** The decimal number of {@code count} ASCII digits at {@code from}, or -1 if one is not. */
  private static int digits(String text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; i++) {
      char c = text.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static String format(LocalDate date) {
    StringBuilder out = new StringBuilder(10);
    appendDate(out, date);
    return out.toString();
  }

  static String format(OffsetDateTime value) {
    OffsetDateTime utc = value.withOffsetSameInstant(ZoneOffset.UTC);
    StringBuilder out = new StringBuilder(27);
    appendDate(out, utc.toLocalDate());
    out.append('T');
    pad(out, utc.getHour(), 2).append(':');
    pad(out, utc.getMinute(), 2).append(':');
    pad(out, utc.getSecond(), 2).append('.');
    int micros = utc.getNano() / 1000;
    if (micros % 1000 == 0) {
      pad(out, micros / 1000, 3);
    } else {
      pad(out, micros, 6);
    }
    return out.append('Z').toString();
  }

  private static void appendDate(StringBuilder out, LocalDate date) {
    pad(out, date.getYear(), 4).append('-');
    pad(out, date.getMonthValue(), 2).append('-');
    pad(out, date.getDayOfMonth(), 2);
  }

  private static StringBuilder pad(StringBuilder out, int value, int width) {
    String digits = Integer.toString(value);
    for (int i = digits.length(); i < width; i++) {
      out.append('0');
    }
    return out.append(digits);
  }
}
