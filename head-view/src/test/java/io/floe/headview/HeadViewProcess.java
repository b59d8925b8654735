package io.floe.headview;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The head view as users run it: {@code java -cp ... io.floe.headview.HeadViewServer --config FILE}
 * in a child JVM, with the service's own log4j2.xml (not the tests'), its log in a file.
 */
final class HeadViewProcess implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("Floe head view listening on (http://\\S+) ");

  private final Process process;
  private final Path log;
  private final String uri;

  private HeadViewProcess(Process process, Path log, String uri) {
    this.process = process;
    this.log = log;
    this.uri = uri;
  }

  /** Starts the service with {@code config} and waits until it listens. */
  static HeadViewProcess start(Map<String, String> config, Path dir) throws Exception {
    Path configFile = dir.resolve("head-view.properties");
    Properties p = new Properties();
    p.putAll(config);
    try (OutputStream out = Files.newOutputStream(configFile)) {
      p.store(out, null);
    }
    Path log = dir.resolve("head-view.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-Dlog4j2.configurationFile=" + serviceLogConfig());
    cmd.add("-cp");
    cmd.add(classpath());
    cmd.add(HeadViewServer.class.getName());
    cmd.add("--config");
    cmd.add(configFile.toString());
    Process process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    String[] uri = new String[1];
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("The head view exited: " + read(log));
                }
                Matcher m = LISTENING.matcher(read(log));
                if (m.find()) {
                  uri[0] = m.group(1);
                }
                return uri[0] != null;
              });
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
    return new HeadViewProcess(process, log, uri[0]);
  }

  String uri() {
    return uri;
  }

  String log() throws IOException {
    return read(log);
  }

  /**
   * Sends SIGTERM (what {@code docker stop} and Kubernetes send) and waits up to {@code atMost} for
   * the process to exit; returns how long it took, or null if it was still running (then killed).
   */
  Duration terminate(Duration atMost) throws InterruptedException {
    long started = System.nanoTime();
    process.destroy();
    if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      return null;
    }
    return Duration.ofNanos(System.nanoTime() - started);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor();
    }
  }

  private static String read(Path log) throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  /** The service's log4j2.xml, from the main classes (the test classes hold log4j2-test.xml). */
  private static String serviceLogConfig() throws URISyntaxException {
    Path classes =
        Path.of(HeadViewServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return classes.resolve("log4j2.xml").toString();
  }

  /** This JVM's classpath without test classes and test jars (their log4j2-test.xml wins). */
  private static String classpath() {
    List<String> out = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.endsWith("test-classes") && !entry.endsWith("-tests.jar")) {
        out.add(entry);
      }
    }
    return String.join(File.pathSeparator, out);
  }
}
