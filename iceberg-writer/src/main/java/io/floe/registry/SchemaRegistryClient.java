package io.floe.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Looks schemas up in a Confluent-compatible schema registry (Confluent Schema Registry, Karapace,
 * Redpanda, Apicurio's {@code /apis/ccompat/v7}) by id and by subject, with the schemas they
 * reference. Schemas by id and by subject version never change, so they stay cached (up to {@code
 * registry.cache.max.schemas}); the latest schema of a subject is reused for {@code
 * registry.latest.cache.ms}. Thread-safe; concurrent lookups of one schema make one request.
 *
 * <p>Each request is bounded as the {@link RegistryConfig} keys document; after the registry was
 * found unreachable, lookups of uncached schemas fail at once for {@code
 * registry.unavailable.cooldown.ms}.
 */
public final class SchemaRegistryClient {
  /** More references than any real schema has: a guard against a registry answering in circles. */
  private static final int MAX_REFERENCES = 1_000;

  private final RegistryHttp http;
  private final CachedLookup<Integer, RegistrySchema> byId;
  private final CachedLookup<SubjectVersion, Stored> bySubjectVersion;
  private final CachedLookup<String, RegistrySchema> latest;

  /** Ids and subjects the registry did not know, by id or subject: asked again only later. */
  private final Cache<Object, SchemaNotFoundException> unknown;

  /**
   * @throws IllegalArgumentException if {@code config} has no registry URL
   * @throws org.apache.kafka.common.config.ConfigException if the trust store cannot be read
   */
  public SchemaRegistryClient(RegistryConfig config) {
    if (!config.enabled()) {
      throw new IllegalArgumentException(RegistryConfig.URL_CONFIG + " is empty: no registry");
    }
    this.http = new RegistryHttp(config);
    int max = config.cacheMaxSchemas();
    this.byId = new CachedLookup<>(Caffeine.newBuilder().maximumSize(max).build());
    this.bySubjectVersion = new CachedLookup<>(Caffeine.newBuilder().maximumSize(max).build());
    this.latest =
        new CachedLookup<>(
            Caffeine.newBuilder()
                .maximumSize(max)
                .expireAfterWrite(Duration.ofMillis(config.latestCacheMs()))
                .build());
    this.unknown =
        Caffeine.newBuilder()
            .maximumSize(max)
            .expireAfterWrite(Duration.ofMillis(config.latestCacheMs()))
            .build();
  }

  /**
   * The schema with this id, as the wire format carries it.
   *
   * @throws SchemaNotFoundException if the registry has no such id (or lost a referenced schema)
   * @throws RegistryUnavailableException if the registry could not be reached
   * @throws RegistryAuthException if the registry refused the credentials
   */
  public RegistrySchema byId(int id) {
    return unlessUnknown(
        id,
        () ->
            byId.get(
                id,
                () -> {
                  String what = "schema id " + id;
                  Stored stored = stored(http.get("/schemas/ids/" + id, what), what);
                  return new RegistrySchema(
                      id, stored.type(), stored.text(), resolve(stored.references()));
                }));
  }

  /**
   * The latest schema registered under {@code subject} (for example {@code orders-value}).
   *
   * @throws SchemaNotFoundException if the registry has no such subject
   * @throws RegistryUnavailableException if the registry could not be reached
   * @throws RegistryAuthException if the registry refused the credentials
   */
  public RegistrySchema latest(String subject) {
    return unlessUnknown(subject, () -> latest.get(subject, () -> latestNow(subject)));
  }

  private RegistrySchema latestNow(String subject) {
    String what = "latest schema of subject '" + subject + "'";
    JsonNode node = http.get(versionPath(subject, "latest"), what);
    if (!node.path("id").canConvertToInt()) {
      throw new RegistryException("Schema registry answered the " + what + " without an id");
    }
    int id = node.get("id").asInt();
    Stored stored = stored(node, what);
    if (node.path("version").canConvertToInt()) {
      bySubjectVersion.put(new SubjectVersion(subject, node.get("version").asInt()), stored);
    }
    RegistrySchema schema =
        new RegistrySchema(id, stored.type(), stored.text(), resolve(stored.references()));
    byId.put(id, schema);
    return schema;
  }

  /**
   * The schema {@code lookup} finds, unless the registry said {@code key} is unknown less than
   * {@code registry.latest.cache.ms} ago: records of an unknown id do not each make a request.
   */
  private RegistrySchema unlessUnknown(Object key, Supplier<RegistrySchema> lookup) {
    SchemaNotFoundException known = unknown.getIfPresent(key);
    if (known != null) {
      throw new SchemaNotFoundException(known.getMessage());
    }
    try {
      return lookup.get();
    } catch (SchemaNotFoundException e) {
      unknown.put(key, e);
      throw e;
    }
  }

  /** Every schema {@code references} names, transitively, by the name it is referenced with. */
  private Map<String, String> resolve(List<Reference> references) {
    Map<String, String> out = new LinkedHashMap<>();
    Deque<Reference> todo = new ArrayDeque<>(references);
    while (!todo.isEmpty()) {
      Reference ref = todo.removeFirst();
      if (out.containsKey(ref.name())) {
        continue;
      }
      if (out.size() >= MAX_REFERENCES) {
        throw new RegistryException("Schema references more than " + MAX_REFERENCES + " schemas");
      }
      SubjectVersion key = new SubjectVersion(ref.subject(), ref.version());
      Stored stored =
          bySubjectVersion.get(
              key,
              () -> {
                String what =
                    "version " + ref.version() + " of subject '" + ref.subject() + "' (referenced)";
                return stored(http.get(versionPath(ref.subject(), ref.version()), what), what);
              });
      out.put(ref.name(), stored.text());
      todo.addAll(stored.references());
    }
    return out;
  }

  private static String versionPath(String subject, Object version) {
    return "/subjects/"
        + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20")
        + "/versions/"
        + version;
  }

  /** The schema, its type and its direct references in a registry answer. */
  private static Stored stored(JsonNode node, Object what) {
    JsonNode text = node.get("schema");
    if (text == null || !text.isTextual()) {
      throw new RegistryException("Schema registry answered " + what + " without a schema text");
    }
    RegistrySchema.Type type;
    String typeName = node.path("schemaType").asText("AVRO").toUpperCase(Locale.ROOT);
    try {
      type = RegistrySchema.Type.valueOf(typeName);
    } catch (IllegalArgumentException e) {
      throw new RegistryException(
          "Schema registry answered " + what + " with an unknown schemaType " + typeName);
    }
    List<Reference> refs = new ArrayList<>();
    for (JsonNode ref : node.path("references")) {
      if (!ref.path("name").isTextual()
          || !ref.path("subject").isTextual()
          || !ref.path("version").canConvertToInt()) {
        throw new RegistryException("Schema registry answered " + what + " with a bad reference");
      }
      refs.add(
          new Reference(
              ref.get("name").asText(), ref.get("subject").asText(), ref.get("version").asInt()));
    }
    return new Stored(type, text.asText(), List.copyOf(refs));
  }

  private record Reference(String name, String subject, int version) {}

  private record SubjectVersion(String subject, int version) {}

  /** A schema as one registry answer gives it: references not yet resolved. */
  private record Stored(RegistrySchema.Type type, String text, List<Reference> references) {}
}
