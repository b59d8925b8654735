package io.floe.rsm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Scrubs credential values from messages. Exceptions from catalogs, JDBC drivers or the AWS SDK may
 * quote a property (a JDBC URL with a password, a signed request); what leaves the plugin in a
 * message, a log line or an exception's cause chain goes through here first.
 */
final class Redactor {
  static final String MASK = "[hidden]";
  private final List<String> secrets;

  Redactor(List<String> secrets) {
    List<String> sorted = new ArrayList<>(secrets);
    sorted.removeIf(s -> s == null || s.isEmpty());
    sorted.sort(Comparator.comparingInt(String::length).reversed());
    this.secrets = List.copyOf(sorted);
  }

  String redact(String message) {
    if (message == null) {
      return null;
    }
    String out = message;
    for (String s : secrets) {
      out = out.replace(s, MASK);
    }
    return scrubEmbedded(out);
  }

  /**
   * A copy of the cause chain with every message redacted; stack traces are kept, class names are
   * kept in the message ({@code original.Class: message}) since the copies are plain
   * RuntimeExceptions.
   */
  Throwable sanitize(Throwable t) {
    return sanitize(t, new IdentityHashMap<>());
  }

  private Throwable sanitize(Throwable t, Map<Throwable, Throwable> seen) {
    if (t == null) {
      return null;
    }
    Throwable done = seen.get(t);
    if (done != null) {
      return done;
    }
    RedactedException copy =
        new RedactedException(t.getClass().getName() + ": " + redact(t.getMessage()));
    seen.put(t, copy);
    copy.setStackTrace(t.getStackTrace());
    if (t.getCause() != null && t.getCause() != t) {
      copy.initCause(sanitize(t.getCause(), seen));
    }
    for (Throwable s : t.getSuppressed()) {
      copy.addSuppressed(sanitize(s, seen));
    }
    return copy;
  }

  /**
   * Describes a failure in one line: its class and redacted message, and those of its root cause.
   */
  String describe(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String s = t.getClass().getSimpleName() + ": " + redact(t.getMessage());
    if (root != t) {
      s +=
          " (caused by " + root.getClass().getSimpleName() + ": " + redact(root.getMessage()) + ")";
    }
    return s;
  }

  /** Stands in for an exception whose message was redacted. */
  static final class RedactedException extends RuntimeException {
    RedactedException(String message) {
      super(message);
    }
  }

  private static final Pattern EMBEDDED_PARAMETER =
      Pattern.compile(
          "(?i)((?:password|passwd|pwd|secret|token|credential|access[-_.]?key)[A-Za-z0-9_.-]*=)[^&;,\\s]*");
  private static final Pattern EMBEDDED_USER_INFO = Pattern.compile("(//[^/:@\\s]+:)[^/@\\s]+@");

  /**
   * Masks credentials embedded in a value: {@code password=...}-style parameters of a JDBC URL and
   * the password of a {@code //user:password@host} URI.
   */
  static String scrubEmbedded(String value) {
    if (value == null) {
      return null;
    }
    String out = EMBEDDED_PARAMETER.matcher(value).replaceAll("$1[hidden]");
    return EMBEDDED_USER_INFO.matcher(out).replaceAll("$1[hidden]@");
  }
}
