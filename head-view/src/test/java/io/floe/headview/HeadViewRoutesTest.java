package io.floe.headview;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.headview.Route.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CachingCatalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ConfigResponseParser;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.ErrorResponseParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The route table without HTTP, Kafka or the head view: config, namespaces, refusals and unknown
 * paths, over a real in-memory catalog. The routes that reach the head view (tables) are exercised
 * through HTTP by {@code HeadViewServerTest}.
 */
class HeadViewRoutesTest {
  private InMemoryCatalog catalog;
  private HeadViewRoutes routes;

  @BeforeEach
  void setUp() {
    catalog = new InMemoryCatalog();
    catalog.initialize("floe", Map.of());
    catalog.createNamespace(Namespace.of("analytics"), Map.of("owner", "team-a"));
    catalog.createNamespace(Namespace.of("analytics", "daily"));
    routes =
        new HeadViewRoutes(
            catalog, null, Map.of("s3.endpoint", "http://127.0.0.1:9000"), "'floe' (type jdbc)");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  @Test
  void configListsTheReadsAndTheRefusedWritesAndTheClientDefaults() {
    for (String method : List.of("GET", "HEAD")) {
      Reply reply = routes.dispatch(method, "/v1/config", Map.of());
      assertThat(reply.status()).isEqualTo(200);
      ConfigResponse config = ConfigResponseParser.fromJson(body(reply));
      assertThat(config.defaults())
          .containsExactly(Map.entry("s3.endpoint", "http://127.0.0.1:9000"));
      assertThat(config.endpoints())
          .containsExactly(
              Endpoint.V1_LIST_NAMESPACES,
              Endpoint.V1_LOAD_NAMESPACE,
              Endpoint.V1_NAMESPACE_EXISTS,
              Endpoint.V1_LIST_TABLES,
              Endpoint.V1_LOAD_TABLE,
              Endpoint.V1_TABLE_EXISTS,
              Endpoint.V1_CREATE_NAMESPACE,
              Endpoint.V1_UPDATE_NAMESPACE,
              Endpoint.V1_DELETE_NAMESPACE,
              Endpoint.V1_CREATE_TABLE,
              Endpoint.V1_UPDATE_TABLE,
              Endpoint.V1_DELETE_TABLE,
              Endpoint.V1_RENAME_TABLE,
              Endpoint.V1_REGISTER_TABLE,
              Endpoint.V1_COMMIT_TRANSACTION);
    }
    assertThat(routes.dispatch("GET", "//v1//config/", Map.of()).status())
        .as("empty path parts are ignored")
        .isEqualTo(200);
  }

  @Test
  void namespacesAreTheCatalogs() {
    Reply all = routes.dispatch("GET", "/v1/namespaces", Map.of());
    assertThat(all.status()).isEqualTo(200);
    assertThat(body(all)).contains("[\"analytics\"]").doesNotContain("daily");

    Reply children = routes.dispatch("GET", "/v1/namespaces", Map.of("parent", "analytics"));
    assertThat(body(children)).contains("[\"analytics\",\"daily\"]");

    Reply loaded = routes.dispatch("GET", "/v1/namespaces/analytics", Map.of());
    assertThat(loaded.status()).isEqualTo(200);
    assertThat(body(loaded)).contains("\"owner\":\"team-a\"");

    Reply nested = routes.dispatch("GET", "/v1/namespaces/analytics%1Fdaily", Map.of());
    assertThat(nested.status()).isEqualTo(200);

    Reply exists = routes.dispatch("HEAD", "/v1/namespaces/analytics", Map.of());
    assertThat(exists.status()).isEqualTo(204);
    assertThat(exists.body()).isNull();
  }

  @Test
  void missingNamespacesAndUnknownReadsAre404() {
    Reply missing = routes.dispatch("HEAD", "/v1/namespaces/nope", Map.of());
    assertThat(missing.status()).isEqualTo(404);
    assertThat(error(missing).type()).isEqualTo("NoSuchNamespaceException");
    assertThat(routes.dispatch("GET", "/v1/namespaces/nope", Map.of()).status()).isEqualTo(404);

    for (String path :
        List.of("/v1/views", "/v2/config", "/v1/namespaces/a/tables/t/metrics", "/", "/v1")) {
      Reply reply = routes.dispatch("GET", path, Map.of());
      assertThat(reply.status()).as(path).isEqualTo(404);
      assertThat(error(reply).type()).isEqualTo("NoSuchEndpoint");
      assertThat(error(reply).message()).contains("GET " + path);
    }
  }

  @Test
  void everyWriteIsRefusedNamingTheBackingCatalog() {
    for (String[] write :
        List.of(
            new String[] {"POST", "/v1/namespaces"},
            new String[] {"POST", "/v1/namespaces/analytics/properties"},
            new String[] {"DELETE", "/v1/namespaces/analytics"},
            new String[] {"POST", "/v1/namespaces/analytics/tables"},
            new String[] {"POST", "/v1/namespaces/analytics/tables/t"},
            new String[] {"DELETE", "/v1/namespaces/analytics/tables/t"},
            new String[] {"POST", "/v1/tables/rename"},
            new String[] {"POST", "/v1/namespaces/analytics/register"},
            new String[] {"POST", "/v1/transactions/commit"},
            new String[] {"PUT", "/v1/anything/else"},
            new String[] {"PATCH", "/v1/config"})) {
      Reply reply = routes.dispatch(write[0], write[1], Map.of());
      assertThat(reply.status()).as(write[0] + " " + write[1]).isEqualTo(405);
      ErrorResponse error = error(reply);
      assertThat(error.type()).isEqualTo("ReadOnlyViewException");
      assertThat(error.code()).isEqualTo(405);
      assertThat(error.message())
          .contains("read-only: " + write[0] + " " + write[1] + " is refused")
          .contains("Write through the backing catalog 'floe' (type jdbc) instead");
    }
    assertThat(catalog.namespaceExists(Namespace.of("analytics"))).isTrue();
  }

  @Test
  void aCatalogWithoutNamespacesIsABadRequest() {
    // Iceberg's caching wrapper is a catalog that does not support namespaces.
    HeadViewRoutes withoutNamespaces =
        new HeadViewRoutes(CachingCatalog.wrap(catalog), null, Map.of(), "'floe' (type jdbc)");
    Reply reply = withoutNamespaces.dispatch("GET", "/v1/namespaces/analytics", Map.of());
    assertThat(reply.status()).isEqualTo(400);
    assertThat(error(reply).message()).contains("has no namespaces");
  }

  @Test
  void routesMatchTheirTemplateOnly() {
    Route table = Route.of(Endpoint.V1_LOAD_TABLE, request -> Reply.empty(204));
    assertThat(table.match("GET", Route.parts("/v1/namespaces/a%1Fb/tables/t%20x")))
        .isEqualTo(Map.of("namespace", "a%1Fb", "table", "t%20x"));
    assertThat(table.match("HEAD", Route.parts("/v1/namespaces/a/tables/t"))).isNull();
    assertThat(table.match("GET", Route.parts("/v1/other/a/tables/t"))).isNull();
    assertThat(table.match("GET", Route.parts("/v1/namespaces/a/tables"))).isNull();
    assertThat(Route.of("GET", "v1/config", request -> Reply.empty(204)).template())
        .containsExactly("v1", "config");
  }

  private static String body(Reply reply) {
    return new String(reply.body(), StandardCharsets.UTF_8);
  }

  private static ErrorResponse error(Reply reply) {
    return ErrorResponseParser.fromJson(body(reply));
  }
}
