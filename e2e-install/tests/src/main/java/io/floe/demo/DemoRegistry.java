package io.floe.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The demo's schema registry (Apicurio, Confluent-compatible API): readiness and registration. */
final class DemoRegistry {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private DemoRegistry() {}

  /** Waits until the registry at {@code url} answers (it takes a few seconds to start). */
  static void awaitReady(String url) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try {
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(URI.create(url + "/subjects")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the schema registry did not answer at " + url + " within 90 s: see registry.log");
      }
      Thread.sleep(250);
    }
  }

  /** Registers an Avro schema under {@code subject}; returns its id. */
  static int register(String url, String subject, String avroSchema)
      throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode().put("schema", avroSchema).put("schemaType", "AVRO");
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url + "/subjects/" + subject + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "registering under " + subject + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body()).get("id").asInt();
  }
}
