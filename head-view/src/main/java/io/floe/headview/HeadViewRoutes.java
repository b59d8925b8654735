package io.floe.headview;

import io.floe.headview.Route.Reply;
import io.floe.headview.Route.Request;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.ResourcePaths;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The head view's REST API: the route table (method and path template to handler) and the handlers,
 * which answer with Iceberg's own REST model ({@link CatalogHandlers}). Reads go to the backing
 * catalog or, for tables, to {@link HeadView}; writes are refused with 405 and where to write
 * instead. Failures become Iceberg error responses with their HTTP status.
 */
final class HeadViewRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(HeadViewRoutes.class);
  private static final String NAMESPACE_SEPARATOR = "%1F";

  /**
   * Writes a client may send. They are listed in {@code /v1/config} so that a client sends them
   * here and gets "read-only, write through the backing catalog" rather than a generic "server does
   * not support endpoint": each answers 405.
   */
  private static final List<Endpoint> REFUSED_WRITES =
      List.of(
          Endpoint.V1_CREATE_NAMESPACE,
          Endpoint.V1_UPDATE_NAMESPACE,
          Endpoint.V1_DELETE_NAMESPACE,
          Endpoint.V1_CREATE_TABLE,
          Endpoint.V1_UPDATE_TABLE,
          Endpoint.V1_DELETE_TABLE,
          Endpoint.V1_RENAME_TABLE,
          Endpoint.V1_REGISTER_TABLE,
          Endpoint.V1_COMMIT_TRANSACTION);

  private final Catalog catalog;
  private final HeadView view;
  private final Map<String, String> clientDefaults;
  private final String writeThrough;
  private final List<Route> routes;

  /**
   * @param writeThrough the backing catalog as a refused write names it
   */
  HeadViewRoutes(
      Catalog catalog, HeadView view, Map<String, String> clientDefaults, String writeThrough) {
    this.catalog = catalog;
    this.view = view;
    this.clientDefaults = clientDefaults;
    this.writeThrough = writeThrough;
    List<Route> table =
        new ArrayList<>(
            List.of(
                Route.of("GET", ResourcePaths.config(), this::config),
                Route.of("HEAD", ResourcePaths.config(), this::config),
                Route.of(Endpoint.V1_LIST_NAMESPACES, this::listNamespaces),
                Route.of("HEAD", ResourcePaths.V1_NAMESPACES, this::listNamespaces),
                Route.of(Endpoint.V1_LOAD_NAMESPACE, this::loadNamespace),
                Route.of(Endpoint.V1_NAMESPACE_EXISTS, this::namespaceExists),
                Route.of(Endpoint.V1_LIST_TABLES, this::listTables),
                Route.of("HEAD", ResourcePaths.V1_TABLES, this::listTables),
                Route.of(Endpoint.V1_LOAD_TABLE, this::loadTable),
                Route.of(Endpoint.V1_TABLE_EXISTS, this::tableExists)));
    REFUSED_WRITES.forEach(e -> table.add(Route.of(e, this::refuse)));
    this.routes = List.copyOf(table);
  }

  /** The endpoints {@code /v1/config} lists: those of the route table, in its order. */
  List<Endpoint> endpoints() {
    return routes.stream().map(Route::endpoint).filter(e -> e != null).toList();
  }

  /**
   * The answer to a request: its route's handler's, 404 for a read no route serves, 405 for any
   * write. An unexpected failure is thrown (the server answers 500).
   */
  Reply dispatch(String method, String rawPath, Map<String, String> query) {
    List<String> parts = Route.parts(rawPath);
    try {
      for (Route route : routes) {
        Map<String, String> variables = route.match(method, parts);
        if (variables != null) {
          return route.handler().handle(new Request(method, rawPath, variables, query));
        }
      }
      if (method.equals("GET") || method.equals("HEAD")) {
        throw new NoSuchEndpoint(method + " " + rawPath + " is not served by the Floe head view");
      }
      return refuse(new Request(method, rawPath, Map.of(), query));
    } catch (NoSuchNamespaceException | NoSuchTableException | NoSuchEndpoint e) {
      return error(404, e);
    } catch (IllegalArgumentException e) {
      return error(400, e);
    } catch (ServiceUnavailableException e) {
      LOG.warn("{} {}: {}", method, rawPath, e.getMessage());
      return error(503, e);
    } catch (ForbiddenException | AlreadyExistsException e) {
      return error(403, e);
    }
  }

  /** An Iceberg {@link ErrorResponse} of {@code status} for {@code e}. */
  static Reply error(int status, Exception e) {
    String type =
        e instanceof ReadOnlyException ? "ReadOnlyViewException" : e.getClass().getSimpleName();
    return Reply.json(
        status,
        ErrorResponse.builder()
            .responseCode(status)
            .withType(type)
            .withMessage(e.getMessage())
            .build());
  }

  private Reply config(Request request) {
    return Reply.json(
        200,
        ConfigResponse.builder()
            .withDefaults(new HashMap<>(clientDefaults))
            .withEndpoints(endpoints())
            .build());
  }

  private Reply listNamespaces(Request request) {
    Map<String, String> query = request.query();
    Namespace parent =
        query.containsKey("parent")
            ? RESTUtil.namespaceFromQueryParam(query.get("parent"))
            : Namespace.empty();
    return Reply.json(
        200,
        query.get("pageSize") == null
            ? CatalogHandlers.listNamespaces(namespaces(), parent)
            : CatalogHandlers.listNamespaces(
                namespaces(), parent, query.get("pageToken"), query.get("pageSize")));
  }

  private Reply loadNamespace(Request request) {
    return Reply.json(200, CatalogHandlers.loadNamespace(namespaces(), namespace(request)));
  }

  private Reply namespaceExists(Request request) {
    CatalogHandlers.namespaceExists(namespaces(), namespace(request));
    return Reply.empty(204);
  }

  private Reply listTables(Request request) {
    Map<String, String> query = request.query();
    if (query.get("pageSize") == null) {
      return Reply.json(200, view.listTables(namespace(request)));
    }
    return Reply.json(
        200,
        CatalogHandlers.listTables(
            catalog, namespace(request), query.get("pageToken"), query.get("pageSize")));
  }

  private Reply loadTable(Request request) {
    LoadTimings timings = new LoadTimings();
    byte[] body = RestJson.write(view.loadTable(table(request), timings));
    timings.mark("json");
    return new Reply(200, body, Map.of("Server-Timing", timings.header()));
  }

  private Reply tableExists(Request request) {
    view.tableExists(table(request));
    return Reply.empty(204);
  }

  private Reply refuse(Request request) {
    return error(
        405,
        new ReadOnlyException(
            "The Floe head view is read-only: "
                + request.method()
                + " "
                + request.path()
                + " is refused. Write through the backing catalog "
                + writeThrough
                + " instead; Kafka topics are written by producing to Kafka."));
  }

  private static Namespace namespace(Request request) {
    return RESTUtil.decodeNamespace(request.variables().get("namespace"), NAMESPACE_SEPARATOR);
  }

  private static TableIdentifier table(Request request) {
    return TableIdentifier.of(
        namespace(request), RESTUtil.decodeString(request.variables().get("table")));
  }

  private SupportsNamespaces namespaces() {
    if (catalog instanceof SupportsNamespaces ns) {
      return ns;
    }
    throw new IllegalArgumentException(
        "The backing catalog " + catalog.name() + " has no namespaces");
  }

  private static final class ReadOnlyException extends RuntimeException {
    ReadOnlyException(String message) {
      super(message);
    }
  }

  private static final class NoSuchEndpoint extends RuntimeException {
    NoSuchEndpoint(String message) {
      super(message);
    }
  }
}
