package io.floe.typed.json;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
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
  private static final Pattern DATE_TIME =
      Pattern.compile(
          "\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})");
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
    if (!DATE_TIME.matcher(text).matches()) {
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
    // as Iceberg's writer stores it: microseconds since the epoch, rounded toward zero
    OffsetDateTime stored = EPOCH.plus(ChronoUnit.MICROS.between(EPOCH, parsed), ChronoUnit.MICROS);
    return stored.getYear() < 0 || stored.getYear() > 9999 ? null : stored;
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
