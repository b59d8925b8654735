package io.floe.demo;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A Java child process (a broker, S3Proxy) with its output in a log file. Every child still running
 * when this JVM exits is killed by a shutdown hook, so a failed or interrupted run leaves nothing
 * behind.
 */
public final class ChildJvm implements AutoCloseable {
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(Process::destroyForcibly), "floe-child-jvm-reaper"));
  }

  private final String name;
  private final Process process;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code java [jvmArgs] -cp <dir>/* mainClass args}, output (stdout and stderr) appended
   * to {@code log}.
   */
  public static ChildJvm start(
      String name,
      Path classpathDir,
      List<String> jvmArgs,
      String mainClass,
      List<String> args,
      Path log)
      throws IOException {
    return start(name, List.of(classpathDir), jvmArgs, mainClass, args, log);
  }

  /** {@link #start(String, Path, List, String, List, Path)} with the jars of several folders. */
  public static ChildJvm start(
      String name,
      List<Path> classpathDirs,
      List<String> jvmArgs,
      String mainClass,
      List<String> args,
      Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    List<String> classpath = new ArrayList<>();
    for (Path dir : classpathDirs) {
      classpath.add(dir.toAbsolutePath() + File.separator + "*");
    }
    cmd.add(String.join(File.pathSeparator, classpath));
    cmd.add(mainClass);
    cmd.addAll(args);
    Files.createDirectories(log.getParent());
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().remove("CLASSPATH");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    Process p = pb.start();
    LIVE.add(p);
    return new ChildJvm(name, p, log);
  }

  /**
   * Runs a child to completion (e.g. kafka-storage format); fails with its output if it does not
   * exit 0.
   */
  public static String run(
      String name,
      Path classpathDir,
      List<String> jvmArgs,
      String mainClass,
      List<String> args,
      Path log,
      long timeoutSeconds)
      throws IOException, InterruptedException {
    try (ChildJvm child = start(name, classpathDir, jvmArgs, mainClass, args, log)) {
      if (!child.process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            name + " did not finish in " + timeoutSeconds + " s:\n" + child.tail(40));
      }
      if (child.process.exitValue() != 0) {
        throw new IllegalStateException(
            name + " exited with " + child.process.exitValue() + ":\n" + child.tail(40));
      }
      return child.output();
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  public Path log() {
    return log;
  }

  /**
   * Throws, with the end of its log, if the child has exited: for wait loops that must not wait on
   * a dead child.
   */
  public void checkAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          name + " exited with " + process.exitValue() + "; end of " + log + ":\n" + tail(60));
    }
  }

  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String tail(int lines) {
    List<String> all = output().lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }

  /** SIGTERM, then SIGKILL if it has not exited within {@code graceSeconds}. */
  public void stop(long graceSeconds) {
    try {
      process.destroy();
      if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      LIVE.remove(process);
    }
  }

  /**
   * SIGKILL, as a crash or the kernel's OOM killer ends a process: no shutdown hook runs, nothing
   * is flushed or closed. Returns once the process is gone.
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(name + " still alive 30 s after SIGKILL");
    }
    LIVE.remove(process);
  }

  @Override
  public void close() {
    stop(15);
  }

  /** A TCP port free on 127.0.0.1 right now. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + process.pid() + ", log " + log + ")";
  }
}
