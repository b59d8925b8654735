package io.floe.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.testing.LocalRegistry;
import io.floe.testing.LocalRegistry.Reference;
import io.floe.testing.LoopbackProxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Lookups against a real registry (Apicurio's Confluent API), counted through a proxy. */
class SchemaRegistryClientTest {
  static final String ADDRESS =
      "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"shop\","
          + "\"fields\":[{\"name\":\"city\",\"type\":\"string\"}]}";
  static final String CUSTOMER =
      "{\"type\":\"record\",\"name\":\"Customer\",\"namespace\":\"shop\","
          + "\"fields\":[{\"name\":\"name\",\"type\":\"string\"},"
          + "{\"name\":\"address\",\"type\":\"shop.Address\"}]}";
  static final String ORDER =
      "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\","
          + "\"fields\":[{\"name\":\"customer\",\"type\":\"shop.Customer\"}]}";
  static final String MONEY_PROTO =
      "syntax = \"proto3\";\npackage shop;\n\nmessage Money {\n  int64 cents = 1;\n}\n";
  static final String PAYMENT_PROTO =
      "syntax = \"proto3\";\npackage shop;\n\nimport \"shop/money.proto\";\n\n"
          + "message Payment {\n  string id = 1;\n  shop.Money amount = 2;\n}\n";
  static final String ITEM_JSON =
      "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
          + "\"properties\":{\"sku\":{\"type\":\"string\"}}}";

  private static LocalRegistry registry;
  private static LoopbackProxy proxy;

  @BeforeAll
  static void startRegistry() {
    registry = LocalRegistry.start();
    proxy = LoopbackProxy.http(registry.url());
  }

  @AfterAll
  static void stopRegistry() {
    proxy.close();
    registry.close();
  }

  @BeforeEach
  void resetProxy() {
    proxy.failWith(0);
    proxy.reset();
  }

  static RegistryConfig config(Map<String, Object> extra) {
    Map<String, Object> props = new HashMap<>(extra);
    return new RegistryConfig(
        new AbstractConfig(RegistryConfig.defineRegistry(new ConfigDef()), props, false));
  }

  private static SchemaRegistryClient client(Map<String, Object> extra) {
    Map<String, Object> props = new HashMap<>(extra);
    props.putIfAbsent(RegistryConfig.URL_CONFIG, proxy.url());
    return new SchemaRegistryClient(config(props));
  }

  private static SchemaRegistryClient client() {
    return client(Map.of());
  }

  @Test
  void looksUpAvroProtobufAndJsonSchemasByIdAndCachesThem() {
    int avro = registry.register("byid-avro-value", "AVRO", ADDRESS);
    int proto = registry.register("byid-proto-value", "PROTOBUF", MONEY_PROTO);
    int json = registry.register("byid-json-value", "JSON", ITEM_JSON);
    SchemaRegistryClient client = client();

    assertThat(client.byId(avro))
        .isEqualTo(new RegistrySchema(avro, RegistrySchema.Type.AVRO, ADDRESS, Map.of()));
    assertThat(client.byId(proto))
        .isEqualTo(new RegistrySchema(proto, RegistrySchema.Type.PROTOBUF, MONEY_PROTO, Map.of()));
    assertThat(client.byId(json))
        .isEqualTo(new RegistrySchema(json, RegistrySchema.Type.JSON, ITEM_JSON, Map.of()));
    assertThat(proxy.requests()).isEqualTo(3);
    assertThat(proxy.seen())
        .extracting(LoopbackProxy.Seen::path)
        .containsExactly(
            "/apis/ccompat/v7/schemas/ids/" + avro,
            "/apis/ccompat/v7/schemas/ids/" + proto,
            "/apis/ccompat/v7/schemas/ids/" + json);

    assertThat(client.byId(avro).text()).isEqualTo(ADDRESS);
    assertThat(client.byId(proto).type()).isEqualTo(RegistrySchema.Type.PROTOBUF);
    assertThat(proxy.requests()).as("cached: no second request").isEqualTo(3);
  }

  @Test
  void resolvesAvroReferencesTransitivelyByName() {
    registry.register("ref-address", "AVRO", ADDRESS);
    registry.register(
        "ref-customer", "AVRO", CUSTOMER, List.of(new Reference("shop.Address", "ref-address", 1)));
    int order =
        registry.register(
            "ref-orders-value",
            "AVRO",
            ORDER,
            List.of(new Reference("shop.Customer", "ref-customer", 1)));
    SchemaRegistryClient client = client();

    RegistrySchema schema = client.byId(order);

    assertThat(schema.text()).isEqualTo(ORDER);
    assertThat(schema.references())
        .containsOnly(Map.entry("shop.Customer", CUSTOMER), Map.entry("shop.Address", ADDRESS));
    assertThat(proxy.seen())
        .extracting(LoopbackProxy.Seen::path)
        .containsExactly(
            "/apis/ccompat/v7/schemas/ids/" + order,
            "/apis/ccompat/v7/subjects/ref-customer/versions/1",
            "/apis/ccompat/v7/subjects/ref-address/versions/1");
  }

  @Test
  void resolvesAProtobufImportAndTheLatestSchemaOfASubject() {
    registry.register("shop-money", "PROTOBUF", MONEY_PROTO);
    int payment =
        registry.register(
            "payments-value",
            "PROTOBUF",
            PAYMENT_PROTO,
            List.of(new Reference("shop/money.proto", "shop-money", 1)));
    SchemaRegistryClient client = client();

    RegistrySchema latest = client.latest("payments-value");

    assertThat(latest)
        .isEqualTo(
            new RegistrySchema(
                payment,
                RegistrySchema.Type.PROTOBUF,
                PAYMENT_PROTO,
                Map.of("shop/money.proto", MONEY_PROTO)));
    int before = proxy.requests();
    assertThat(client.byId(payment)).isEqualTo(latest);
    assertThat(client.latest("payments-value")).isEqualTo(latest);
    assertThat(proxy.requests()).as("latest fills the id cache").isEqualTo(before);
  }

  @Test
  void resolvesAJsonSchemaReference() {
    registry.register("json-item", "JSON", ITEM_JSON);
    String cart =
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
            + "\"properties\":{\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"item.json\"}}}}";
    int id =
        registry.register(
            "carts-value", "JSON", cart, List.of(new Reference("item.json", "json-item", 1)));

    assertThat(client().byId(id))
        .isEqualTo(
            new RegistrySchema(id, RegistrySchema.Type.JSON, cart, Map.of("item.json", ITEM_JSON)));
  }

  @Test
  void reusesTheLatestSchemaOfASubjectForTheConfiguredTimeOnly() {
    String v1 = "{\"type\":\"record\",\"name\":\"L\",\"fields\":[]}";
    String v2 =
        "{\"type\":\"record\",\"name\":\"L\",\"fields\":"
            + "[{\"name\":\"n\",\"type\":[\"null\",\"long\"],\"default\":null}]}";
    registry.register("latest-value", "AVRO", v1);
    SchemaRegistryClient forever = client(Map.of(RegistryConfig.LATEST_CACHE_MS_CONFIG, "600000"));
    SchemaRegistryClient never = client(Map.of(RegistryConfig.LATEST_CACHE_MS_CONFIG, "0"));
    assertThat(forever.latest("latest-value").text()).isEqualTo(v1);
    assertThat(never.latest("latest-value").text()).isEqualTo(v1);

    int id2 = registry.register("latest-value", "AVRO", v2);

    assertThat(forever.latest("latest-value").text()).isEqualTo(v1);
    assertThat(never.latest("latest-value").id()).isEqualTo(id2);
    assertThat(proxy.requests()).isEqualTo(3);
  }

  @Test
  void encodesSubjectsInThePath() {
    int id = registry.register("team a/orders-value", "AVRO", "\"string\"");

    assertThat(client().latest("team a/orders-value").id()).isEqualTo(id);
    assertThat(proxy.seen().get(0).path())
        .isEqualTo("/apis/ccompat/v7/subjects/team%20a%2Forders-value/versions/latest");
  }

  @Test
  void unknownIdsAndSubjectsAreNotFoundAtOnceAndNeverRetried() {
    SchemaRegistryClient client = client(Map.of(RegistryConfig.RETRY_BACKOFF_MS_CONFIG, "1000"));
    long start = System.nanoTime();

    assertThatThrownBy(() -> client.byId(987_654))
        .isInstanceOf(SchemaNotFoundException.class)
        .hasMessageContaining("schema id 987654")
        .hasMessageContaining("40403")
        .hasMessageContaining(proxy.url() + "/schemas/ids/987654");
    assertThatThrownBy(() -> client.latest("no-such-subject"))
        .isInstanceOf(SchemaNotFoundException.class)
        .hasMessageContaining("40401");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(900));
    assertThat(proxy.requests()).isEqualTo(2);
    assertThatThrownBy(() -> client.byId(987_654))
        .isInstanceOf(SchemaNotFoundException.class)
        .hasMessageContaining("40403");
    assertThatThrownBy(() -> client.latest("no-such-subject"))
        .isInstanceOf(SchemaNotFoundException.class);
    assertThat(proxy.requests()).as("unknown for registry.latest.cache.ms").isEqualTo(2);

    SchemaRegistryClient forgetful = client(Map.of(RegistryConfig.LATEST_CACHE_MS_CONFIG, "0"));
    assertThatThrownBy(() -> forgetful.byId(987_654)).isInstanceOf(SchemaNotFoundException.class);
    assertThatThrownBy(() -> forgetful.byId(987_654)).isInstanceOf(SchemaNotFoundException.class);
    assertThat(proxy.requests()).as("asked again, no cooldown after a 404").isEqualTo(4);
  }

  @Test
  void otherClientErrorsAreNeitherRetriedNorCooledDown() {
    proxy.failWith(422);
    SchemaRegistryClient client = client();

    assertThatThrownBy(() -> client.byId(5))
        .isExactlyInstanceOf(RegistryException.class)
        .hasMessageContaining("rejected the lookup of schema id 5 (HTTP 422");
    assertThat(proxy.requests()).isEqualTo(1);
    proxy.failWith(0);
    int id = registry.register("after-422-value", "AVRO", "\"float\"");
    assertThat(client.byId(id).text()).isEqualTo("\"float\"");
    assertThat(proxy.requests()).isEqualTo(2);
  }

  @Test
  void retriesServerErrorsWithBackoffThenReportsTheRegistryUnavailable() {
    proxy.failWith(503);
    SchemaRegistryClient client =
        client(
            Map.of(
                RegistryConfig.RETRIES_CONFIG, "2",
                RegistryConfig.RETRY_BACKOFF_MS_CONFIG, "50"));
    long start = System.nanoTime();

    assertThatThrownBy(() -> client.byId(1))
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("3 attempt(s)")
        .hasMessageContaining(proxy.url() + "/schemas/ids/1: HTTP 503");

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(150));
    assertThat(proxy.requests()).isEqualTo(3);
    proxy.failWith(0);
    assertThatThrownBy(() -> client.byId(1))
        .as("cooldown: failed without a request")
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("no request made");
    assertThat(proxy.requests()).isEqualTo(3);
  }

  @Test
  void triesTheNextUrlWhenOneIsDown() throws Exception {
    int id = registry.register("failover-value", "AVRO", "\"bytes\"");
    String down;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      down = "http://127.0.0.1:" + socket.getLocalPort();
    }
    SchemaRegistryClient client =
        client(
            Map.of(
                RegistryConfig.URL_CONFIG,
                down + "," + proxy.url(),
                RegistryConfig.RETRY_BACKOFF_MS_CONFIG,
                "0"));

    assertThat(client.byId(id).text()).isEqualTo("\"bytes\"");
    assertThat(client.latest("failover-value").id()).isEqualTo(id);
    assertThat(proxy.requests()).isEqualTo(2);
  }

  @Test
  void concurrentLookupsOfOneIdMakeOneRequest() throws Exception {
    int id = registry.register("concurrent-value", "AVRO", "\"double\"");
    SchemaRegistryClient client = client();
    int threads = 16;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<RegistrySchema>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return client.byId(id);
                }));
      }
      go.countDown();
      for (Future<RegistrySchema> result : results) {
        assertThat(result.get().text()).isEqualTo("\"double\"");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(proxy.requests()).isEqualTo(1);
  }
}
