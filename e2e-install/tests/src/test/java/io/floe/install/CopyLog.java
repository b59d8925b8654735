package io.floe.install;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Copies as one broker start's log tells them, read as the log grows. Kafka's Remote Log Manager
 * logs {@code Copying <base offset>.log to remote storage.} before it calls the plugin, {@code
 * Copied <base offset>.log to remote storage with segment-id ...} once the copy is recorded and
 * {@code Copy failed ...} when it is not; the plugin logs {@code Copied <partition> offsets ...}
 * after its commit, {@code Copying segment ... failed: <cause>} for a failed attempt and {@code
 * cannot be tiered} for a segment it refuses. A copy is in flight from Kafka's first line until one
 * of its others for the same partition.
 */
final class CopyLog {
  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");
  private static final String PARTITION = "partition=(?:\\S+:)?(\\S+?)\\] ";
  private static final Pattern STARTED =
      Pattern.compile(PARTITION + "Copying (\\d+)\\.log to remote storage\\.");
  private static final Pattern FINISHED =
      Pattern.compile(PARTITION + "Copied (\\d+)\\.log to remote storage with segment-id");
  private static final Pattern KAFKA_FAILED = Pattern.compile(PARTITION + "Copy failed");
  private static final Pattern FLOE_COPIED =
      Pattern.compile("\\] INFO Copied \\S+ offsets \\d+\\.\\.\\d+ .*\\(io\\.floe\\.");
  private static final Pattern FLOE_TIMED =
      Pattern.compile(
          "\\] INFO Copied (\\S+)-\\d+ offsets .* attempt\\(s\\), (\\d+) ms, (\\d+) ms of it committing\\)");
  private static final Pattern FLOE_FAILED =
      Pattern.compile("Copying segment \\S+ of \\S+ \\(offsets \\d+\\.\\.\\d+\\) failed");

  /**
   * Counts over whole logs: copies Kafka started, recorded as finished and saw fail; copies the
   * plugin committed, attempts it failed and segments it refused.
   */
  record Counts(
      long started, long finished, long failed, long floeCopies, long floeFailed, long refused) {}

  private final Path file;
  private long position;

  /** Copies in flight: partition/base offset to when Kafka logged their start (epoch millis). */
  private final Map<String, Long> inFlight = new HashMap<>();

  CopyLog(Path file) {
    this.file = file;
  }

  /** Reads what the broker logged since the last call; true if a copy is in flight now. */
  boolean copyInFlight() {
    for (String line : newLines()) {
      Matcher m = STARTED.matcher(line);
      if (m.find()) {
        inFlight.put(m.group(1) + "/" + Long.parseLong(m.group(2)), timestamp(line));
        continue;
      }
      m = FINISHED.matcher(line);
      if (m.find()) {
        inFlight.remove(m.group(1) + "/" + Long.parseLong(m.group(2)));
        continue;
      }
      m = KAFKA_FAILED.matcher(line);
      if (m.find()) {
        String partition = m.group(1);
        inFlight.keySet().removeIf(k -> k.startsWith(partition + "/"));
      }
    }
    return !inFlight.isEmpty();
  }

  /**
   * When the oldest copy in flight started (epoch millis), as of the last {@link #copyInFlight}.
   */
  OptionalLong inFlightSince() {
    return inFlight.values().stream().mapToLong(Long::longValue).min();
  }

  /** The time of a log line ({@code [yyyy-MM-dd HH:mm:ss,SSS] ...}, the JVM's zone) in millis. */
  private static long timestamp(String line) {
    return LocalDateTime.parse(line.substring(1, 24), LOG_TIME)
        .atZone(ZoneId.systemDefault())
        .toInstant()
        .toEpochMilli();
  }

  private List<String> newLines() {
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      if (length <= position) {
        return List.of();
      }
      byte[] bytes = new byte[(int) (length - position)];
      in.seek(position);
      in.readFully(bytes);
      int end = lastNewline(bytes);
      position += end + 1;
      return new String(bytes, 0, end + 1, StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int lastNewline(byte[] bytes) {
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Counts the copy lines of whole logs (every start of every broker). */
  static Counts count(List<Path> logs) {
    long[] n = new long[6];
    eachLine(
        logs,
        () ->
            line -> {
              if (STARTED.matcher(line).find()) {
                n[0]++;
              } else if (FINISHED.matcher(line).find()) {
                n[1]++;
              } else if (KAFKA_FAILED.matcher(line).find()) {
                n[2]++;
              } else if (FLOE_COPIED.matcher(line).find()) {
                n[3]++;
              } else if (FLOE_FAILED.matcher(line).find()) {
                n[4]++;
              } else if (line.contains("cannot be tiered")) {
                n[5]++;
              }
            });
    return new Counts(n[0], n[1], n[2], n[3], n[4], n[5]);
  }

  /**
   * Feeds every line of each log, in order, to a handler {@code perLog} makes for that log (so that
   * it may keep state of its own, such as the copies in flight).
   */
  private static void eachLine(List<Path> logs, Supplier<Consumer<String>> perLog) {
    for (Path log : logs) {
      Consumer<String> handler = perLog.get();
      try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
        lines.forEach(handler);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A copy that failed: its partition and when it started and failed (epoch millis). */
  record FailedCopy(String partition, long startedAt, long failedAt) {}

  /** The copies Kafka logged as failed in whole logs, each from its start to its failure. */
  static List<FailedCopy> failedCopies(List<Path> logs) {
    List<FailedCopy> out = new ArrayList<>();
    eachLine(
        logs,
        () -> {
          Map<String, Long> started = new HashMap<>();
          return line -> {
            Matcher m = STARTED.matcher(line);
            if (m.find()) {
              started.put(m.group(1), timestamp(line));
              return;
            }
            m = KAFKA_FAILED.matcher(line);
            if (m.find() && started.containsKey(m.group(1))) {
              out.add(new FailedCopy(m.group(1), started.get(m.group(1)), timestamp(line)));
            }
          };
        });
    return out;
  }

  /**
   * Where the copies of {@code topic} that finished between {@code from} and {@code to} (epoch
   * millis) spent their time, in mean milliseconds per copy: from Kafka's start line to its finish
   * line (the Remote Log Manager's metadata records included), the plugin's copy, and its commit.
   */
  record CopyTimes(long copies, double kafkaMs, double floeMs, double commitMs) {}

  static CopyTimes copyTimes(List<Path> logs, String topic, long from, long to) {
    long[] kafka = new long[2];
    long[] floe = new long[3];
    String prefix = topic + "-";
    eachLine(
        logs,
        () -> {
          Map<String, Long> started = new HashMap<>();
          return line -> {
            Matcher m = STARTED.matcher(line);
            if (m.find() && m.group(1).startsWith(prefix)) {
              started.put(m.group(1), timestamp(line));
              return;
            }
            m = FINISHED.matcher(line);
            if (m.find() && started.containsKey(m.group(1))) {
              long at = timestamp(line);
              if (at >= from && at < to) {
                kafka[0]++;
                kafka[1] += at - started.remove(m.group(1));
              }
              return;
            }
            m = FLOE_TIMED.matcher(line);
            if (m.find() && m.group(1).equals(topic)) {
              long at = timestamp(line);
              if (at >= from && at < to) {
                floe[0]++;
                floe[1] += Long.parseLong(m.group(2));
                floe[2] += Long.parseLong(m.group(3));
              }
            }
          };
        });
    return new CopyTimes(
        floe[0],
        kafka[1] / (double) Math.max(1, kafka[0]),
        floe[1] / (double) Math.max(1, floe[0]),
        floe[2] / (double) Math.max(1, floe[0]));
  }
}
