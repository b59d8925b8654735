package io.floe.testing;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real schema registry for tests: Apicurio Registry 3.3.3 (the {@code
 * io.apicurio:apicurio-registry-app:3.3.3:tar.gz:all} test dependency of iceberg-writer, taken from
 * the local Maven repository and extracted once under {@code target/}) run as a child process on a
 * Java 21+ JDK ({@code -Dfloe.registry.java}, default Temurin 25), in-memory storage, listening on
 * 127.0.0.1 only. Clients use its Confluent-compatible API, {@link #url()}. Other modules use it
 * through iceberg-writer's test-jar; it extracts into their own {@code target/}, and the archive
 * must be in the local Maven repository (declare the same test dependency there).
 *
 * <p>What the ccompat API does here, seen against this server: ids are global and given by content
 * (the same schema under two subjects has one id); {@code GET /schemas/ids/{id}} answers {@code
 * schema}, {@code schemaType} (absent for Avro) and {@code references} (absent when none); unknown
 * ids are error 40403, unknown subjects 40401; a subject keeps one schema type (42201 otherwise); a
 * JSON Schema that is only {@code {"type":"object"}} is refused (42201, "Failed to discover
 * artifact type from content") even with {@code schemaType JSON}; subjects with {@code /} or spaces
 * work when percent-encoded; readiness is {@code /health/ready} on the management port (not {@code
 * /q/...}).
 */
public final class LocalRegistry implements AutoCloseable {
  public static final String VERSION = "3.3.3";

  /** A Java 21+ launcher: Apicurio Registry 3 does not run on the tests' Java 17. */
  private static final String JAVA =
      System.getProperty("floe.registry.java", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

  private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final Thread reaper;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newHttpClient();

  private LocalRegistry(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.reaper = new Thread(process::destroyForcibly, "local-registry-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** A schema another one references: the name it uses, and the subject and version holding it. */
  public record Reference(String name, String subject, int version) {}

  /** Starts a registry and returns once it is ready (about 4 s). */
  public static LocalRegistry start() {
    return start(freePort());
  }

  /**
   * Starts a registry whose Confluent-compatible API listens on {@code port}, for example the port
   * of one that was {@linkplain #close() stopped}, so that clients configured with its URL reach
   * the new one (empty: its schemas are gone with the old process); returns once it is ready.
   */
  public static LocalRegistry start(int port) {
    Path home = extracted();
    int managementPort = freePort();
    Path log = home.getParent().resolve("apicurio-registry-" + port + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                JAVA,
                "-Xmx256m",
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.host=127.0.0.1",
                "-Dquarkus.management.port=" + managementPort,
                "-jar",
                home.resolve("quarkus-run.jar").toString())
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start Apicurio Registry with " + JAVA, e);
    }
    LocalRegistry registry = new LocalRegistry(process, port, log);
    URI ready = URI.create("http://127.0.0.1:" + managementPort + "/health/ready");
    try {
      await("Apicurio Registry ready (log: " + log + ")")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .failFast("Apicurio Registry exited (log: " + log + ")", () -> !process.isAlive())
          .until(() -> registry.status(ready) == 200);
    } catch (RuntimeException | Error e) {
      registry.close();
      throw e;
    }
    return registry;
  }

  /** The base URL of the Confluent-compatible API. */
  public String url() {
    return url(port);
  }

  /** The base URL of the Confluent-compatible API of a registry started on {@code port}. */
  public static String url(int port) {
    return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
  }

  public int port() {
    return port;
  }

  /**
   * Registers {@code schema} under {@code subject} and returns its id.
   *
   * @param type AVRO, PROTOBUF or JSON
   */
  public int register(String subject, String type, String schema, List<Reference> references) {
    ObjectNode body = JSON.createObjectNode().put("schema", schema).put("schemaType", type);
    ArrayNode refs = body.putArray("references");
    for (Reference ref : references) {
      refs.addObject()
          .put("name", ref.name())
          .put("subject", ref.subject())
          .put("version", ref.version());
    }
    URI uri =
        URI.create(
            url()
                + "/subjects/"
                + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20")
                + "/versions");
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri)
                  .header("Content-Type", CONTENT_TYPE)
                  .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "Registering under "
                + subject
                + ": HTTP "
                + response.statusCode()
                + " "
                + response.body());
      }
      return JSON.readTree(response.body()).get("id").asInt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public int register(String subject, String type, String schema) {
    return register(subject, type, schema, List.of());
  }

  /** Stops the registry process (its in-memory schemas are gone). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs anyway
    }
  }

  private int status(URI uri) {
    try {
      return http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * The extracted distribution under {@code target/}, extracting it first if needed (into a
   * temporary folder renamed when complete, so concurrent test JVMs never see half of it).
   */
  static synchronized Path extracted() {
    Path target = Path.of("target").toAbsolutePath();
    Path home = target.resolve("apicurio-registry-" + VERSION);
    if (Files.isRegularFile(home.resolve("quarkus-run.jar"))) {
      return home;
    }
    Path archive = archive();
    try {
      Files.createDirectories(target);
      Path tmp = Files.createTempDirectory(target, "apicurio-extract-");
      try {
        run(List.of("tar", "-xzf", archive.toString(), "-C", tmp.toString()));
        Path top = Files.isRegularFile(tmp.resolve("quarkus-run.jar")) ? tmp : only(tmp);
        Files.move(top, home, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        // another test JVM may have extracted it first
        if (!Files.isRegularFile(home.resolve("quarkus-run.jar"))) {
          throw e;
        }
      } finally {
        deleteTree(tmp);
      }
      return home;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not extract " + archive, e);
    }
  }

  private static Path archive() {
    String repo =
        System.getProperty(
            "maven.repo.local",
            Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
    Path archive =
        Path.of(
            repo,
            "io/apicurio/apicurio-registry-app",
            VERSION,
            "apicurio-registry-app-" + VERSION + "-all.tar.gz");
    if (!Files.isRegularFile(archive)) {
      throw new IllegalStateException(
          archive
              + " is missing: build iceberg-writer's tests once online (Maven downloads the"
              + " io.apicurio:apicurio-registry-app:"
              + VERSION
              + ":tar.gz:all test dependency)");
    }
    return archive;
  }

  private static Path only(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      List<Path> all = entries.toList();
      if (all.size() != 1 || !Files.isRegularFile(all.get(0).resolve("quarkus-run.jar"))) {
        throw new IOException("Unexpected layout of the Apicurio archive: " + all);
      }
      return all.get(0);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static void run(List<String> command) throws IOException {
    try {
      Process p = new ProcessBuilder(command).inheritIO().start();
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("Failed: " + command);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted: " + command, e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
