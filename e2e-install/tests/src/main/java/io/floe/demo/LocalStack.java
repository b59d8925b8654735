package io.floe.demo;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Files for a local S3Proxy + one-node KRaft broker: the S3Proxy properties, and the broker's
 * server.properties made from the shipped broker-config/server.properties with the ports,
 * directories and plugin folder of this run (plus, for tests, faster task intervals).
 */
public final class LocalStack {
  public static final String ACCESS_KEY = "floe";
  public static final String SECRET_KEY = "floe-secret";
  public static final String BUCKET = "floe";

  private LocalStack() {}

  /**
   * S3Proxy on 127.0.0.1:port, filesystem blob store under dir/s3 with the bucket already there.
   */
  public static Path writeS3ProxyConfig(Path dir, int port) throws IOException {
    Path base = dir.resolve("s3");
    Files.createDirectories(base.resolve(BUCKET));
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", ACCESS_KEY);
    p.setProperty("s3proxy.credential", SECRET_KEY);
    p.setProperty("jclouds.provider", "filesystem");
    p.setProperty("jclouds.filesystem.basedir", base.toAbsolutePath().toString());
    Path file = dir.resolve("s3proxy.properties");
    store(p, file);
    Files.writeString(
        dir.resolve("s3proxy-logback.xml"),
        "<configuration>\n"
            + "  <appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
            + "    <encoder><pattern>%d %-5level %logger{36} - %msg%n</pattern></encoder>\n"
            + "  </appender>\n"
            + "  <root level=\"WARN\"><appender-ref ref=\"OUT\"/></root>\n"
            + "</configuration>\n",
        StandardCharsets.UTF_8);
    return file;
  }

  /** JVM flags for S3Proxy written by {@link #writeS3ProxyConfig}. */
  public static List<String> s3ProxyJvmArgs(Path dir) {
    return List.of(
        "-Xmx256m",
        "-Dlogback.configurationFile=" + dir.resolve("s3proxy-logback.xml").toAbsolutePath());
  }

  /**
   * A broker's classpath folders: Kafka's jars and the plugin folder's {@code broker-libs} (Floe's
   * remote log metadata manager, which the shipped server.properties names). The plugin's own jars
   * are not on it: Kafka loads them through remote.log.storage.manager.class.path.
   */
  public static List<Path> brokerClasspath(Path kafkaLibs, Path pluginDir) {
    return List.of(kafkaLibs, pluginDir.resolve("broker-libs"));
  }

  /**
   * JVM flags for a broker: heap and a config that logs to stdout in Kafka's own pattern, for
   * log4j2 (Kafka 4) and for log4j 1 (reload4j, Kafka 3.9); each ignores the other's system
   * property.
   */
  public static List<String> brokerJvmArgs(Path dir) throws IOException {
    Path log4j = dir.resolve("log4j2.properties");
    Files.writeString(
        log4j,
        String.join(
            "\n",
            "status = warn",
            "appender.out.type = Console",
            "appender.out.name = OUT",
            "appender.out.layout.type = PatternLayout",
            "appender.out.layout.pattern = [%d] %p %m (%c)%n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.out.ref = OUT",
            "logger.floe.name = io.floe",
            "logger.floe.level = INFO",
            "logger.icebergretries.name = org.apache.iceberg.util.Tasks",
            "logger.icebergretries.level = ERROR",
            ""),
        StandardCharsets.UTF_8);
    Path log4j1 = dir.resolve("log4j.properties");
    Files.writeString(
        log4j1,
        String.join(
            "\n",
            "log4j.rootLogger=INFO, OUT",
            "log4j.appender.OUT=org.apache.log4j.ConsoleAppender",
            "log4j.appender.OUT.layout=org.apache.log4j.PatternLayout",
            "log4j.appender.OUT.layout.ConversionPattern=[%d] %p %m (%c)%n",
            "log4j.logger.io.floe=INFO",
            "log4j.logger.org.apache.iceberg.util.Tasks=ERROR",
            ""),
        StandardCharsets.UTF_8);
    return List.of(
        "-Xmx1g",
        "-XX:+UseParallelGC",
        "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(),
        "-Dlog4j.configuration=" + log4j1.toUri());
  }

  /**
   * The broker's server.properties: the shipped one with this run's ports, log dir, catalog file,
   * S3 endpoint and plugin folder, then {@code extra} on top.
   */
  public static Path writeBrokerConfig(
      Path shipped,
      Path dir,
      int brokerPort,
      int controllerPort,
      int s3Port,
      Path pluginDir,
      Map<String, String> extra)
      throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(shipped, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Map<String, String> o = new TreeMap<>();
    o.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    o.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    o.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
    o.put("log.dirs", dir.resolve("kraft-logs").toAbsolutePath().toString());
    o.put("remote.log.storage.manager.class.path", pluginDir.toAbsolutePath() + "/*");
    o.put("rsm.config.iceberg.uri", "jdbc:sqlite:" + dir.resolve("catalog.db").toAbsolutePath());
    o.put("rsm.config.iceberg.s3.endpoint", "http://127.0.0.1:" + s3Port);
    o.put("rsm.config.iceberg.s3.access-key-id", ACCESS_KEY);
    o.put("rsm.config.iceberg.s3.secret-access-key", SECRET_KEY);
    o.putAll(extra);
    o.forEach(p::setProperty);
    Path file = dir.resolve("server.properties");
    store(p, file);
    return file;
  }

  /** Settings that make a one-node run tier and delete locally within seconds (shared/STACK.md). */
  public static Map<String, String> fastTiering() {
    return Map.of(
        "remote.log.manager.task.interval.ms", "1000",
        "log.retention.check.interval.ms", "1000",
        "log.initial.task.delay.ms", "0",
        "offsets.topic.num.partitions", "1",
        "transaction.state.log.num.partitions", "1",
        "rlmm.config.remote.log.metadata.topic.num.partitions", "1");
  }

  /**
   * The catalog properties of a broker config, as the plugin gets them (rsm.config.iceberg.* less
   * the prefix).
   */
  public static Map<String, String> catalogProperties(Path serverProperties) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(serverProperties, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    Map<String, String> out = new TreeMap<>();
    for (String k : p.stringPropertyNames()) {
      if (k.startsWith("rsm.config.iceberg.")) {
        out.put(k.substring("rsm.config.iceberg.".length()), p.getProperty(k));
      }
    }
    return out;
  }

  /** A rsm.config.* value of a broker config (e.g. catalog.name), or the default. */
  public static String rsmConfig(Path serverProperties, String key, String dflt)
      throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(serverProperties, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return p.getProperty("rsm.config." + key, dflt);
  }

  private static void store(Properties p, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      // sorted, so the file reads like a config and diffs well
      TreeMap<String, String> sorted = new TreeMap<>();
      p.stringPropertyNames().forEach(k -> sorted.put(k, p.getProperty(k)));
      for (Map.Entry<String, String> e : sorted.entrySet()) {
        w.write(e.getKey() + "=" + e.getValue().replace("\\", "\\\\") + "\n");
      }
    }
  }
}
