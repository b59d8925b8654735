package io.floe.headview;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.Endpoint;

/**
 * One row of the head view's route table: an HTTP method and a path template whose {@code {name}}
 * parts are variables, the Iceberg REST endpoint it implements (null for the config route and the
 * {@code HEAD} twins of list routes, which are no endpoint of their own), and its handler.
 */
record Route(String method, List<String> template, Endpoint endpoint, Handler handler) {

  /** Answers one request that matched its route. */
  @FunctionalInterface
  interface Handler {
    Reply handle(Request request);
  }

  /**
   * A request as a handler sees it.
   *
   * @param method the HTTP method
   * @param path the raw path (still URL-encoded)
   * @param variables the template's variables, raw (still URL-encoded)
   * @param query the query parameters, decoded
   */
  record Request(
      String method, String path, Map<String, String> variables, Map<String, String> query) {}

  /**
   * An answer: status, body (null: none) and headers. A body is JSON; the answer to a {@code HEAD}
   * request has the status and headers only.
   */
  record Reply(int status, byte[] body, Map<String, String> headers) {
    static Reply json(int status, Object body) {
      return new Reply(status, RestJson.write(body), Map.of());
    }

    static Reply empty(int status) {
      return new Reply(status, null, Map.of());
    }
  }

  /** The route of {@code method} on {@code template} (Iceberg's form, without {@code {prefix}}). */
  static Route of(String method, String template, Handler handler) {
    return new Route(method, parts(template.replace("/{prefix}", "")), null, handler);
  }

  /** The route of an Iceberg REST endpoint (served without a prefix). */
  static Route of(Endpoint endpoint, Handler handler) {
    return new Route(
        endpoint.httpMethod(), parts(endpoint.path().replace("/{prefix}", "")), endpoint, handler);
  }

  /**
   * The path's parts: split at {@code /}, empty parts dropped (so {@code //v1/config/} is {@code
   * v1/config}).
   */
  static List<String> parts(String path) {
    List<String> parts = new ArrayList<>(Arrays.asList(path.split("/")));
    parts.removeIf(String::isEmpty);
    return parts;
  }

  /** The variables of a request that matches this route, or null when it does not match. */
  Map<String, String> match(String requestMethod, List<String> pathParts) {
    if (!method.equals(requestMethod) || pathParts.size() != template.size()) {
      return null;
    }
    Map<String, String> variables = new HashMap<>();
    for (int i = 0; i < template.size(); i++) {
      String part = template.get(i);
      if (part.startsWith("{") && part.endsWith("}")) {
        variables.put(part.substring(1, part.length() - 1), pathParts.get(i));
      } else if (!part.equals(pathParts.get(i))) {
        return null;
      }
    }
    return variables;
  }
}
