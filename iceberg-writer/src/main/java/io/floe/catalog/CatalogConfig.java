package io.floe.catalog;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.catalog.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The catalog settings the plugin and the head view share, written once: the keys (the documented
 * {@code iceberg.*} ones, {@code catalog.name}, {@code table.namespace}) with their validators and
 * documentation, added to each one's {@link ConfigDef}, and how they are read (catalog properties,
 * name, description for messages, namespace) from the parsed configuration.
 */
public final class CatalogConfig {
  /** Every key under it goes, prefix removed, to Iceberg's {@code CatalogUtil}. */
  public static final String ICEBERG_PREFIX = "iceberg.";

  public static final List<String> CATALOG_TYPES =
      List.of("jdbc", "rest", "glue", "hadoop", "hive", "nessie");

  public static final String ICEBERG_TYPE_CONFIG = "iceberg.type";
  public static final String ICEBERG_CATALOG_IMPL_CONFIG = "iceberg.catalog-impl";
  public static final String ICEBERG_URI_CONFIG = "iceberg.uri";
  public static final String ICEBERG_WAREHOUSE_CONFIG = "iceberg.warehouse";
  public static final String ICEBERG_IO_IMPL_CONFIG = "iceberg.io-impl";
  public static final String CATALOG_NAME_CONFIG = "catalog.name";
  public static final String TABLE_NAMESPACE_CONFIG = "table.namespace";

  public static final String DEFAULT_CATALOG_NAME = "floe";
  public static final String DEFAULT_TABLE_NAMESPACE = "kafka";

  static final String ICEBERG_TYPE_DOC =
      "Iceberg catalog type, passed to Iceberg as 'type': one of "
          + CATALOG_TYPES
          + ". Required unless "
          + ICEBERG_CATALOG_IMPL_CONFIG
          + " is set. Every other key starting with '"
          + ICEBERG_PREFIX
          + "' is passed to the catalog verbatim with the prefix removed (for example "
          + "iceberg.jdbc.user, iceberg.s3.endpoint, iceberg.s3.path-style-access, iceberg.client.region, "
          + "iceberg.credential, iceberg.token).";
  static final String ICEBERG_CATALOG_IMPL_DOC =
      "Class name of a custom Iceberg catalog, passed to Iceberg as 'catalog-impl'. Mutually exclusive "
          + "with "
          + ICEBERG_TYPE_CONFIG
          + ".";
  static final String ICEBERG_URI_DOC =
      "Catalog URI, passed as 'uri': a JDBC URL (jdbc:sqlite:/var/lib/floe/catalog.db, "
          + "jdbc:postgresql://...) for type jdbc, the endpoint for type rest.";
  static final String ICEBERG_WAREHOUSE_DOC =
      "Warehouse location under which new topic tables are created, passed as 'warehouse' "
          + "(for example s3://bucket/warehouse or file:///var/lib/floe/warehouse).";
  static final String ICEBERG_IO_IMPL_DOC =
      "FileIO class the catalog uses, passed as 'io-impl' (for example org.apache.iceberg.aws.s3.S3FileIO). "
          + "Unset: the catalog's default.";
  static final String CATALOG_NAME_DOC =
      "Name given to the Iceberg catalog. Engines reading the tables through the same JDBC catalog must "
          + "use the same name (JDBC catalogs key their rows by it).";
  static final String TABLE_NAMESPACE_DOC =
      "Iceberg namespace of the topic tables; dots separate levels (a.b is namespace [a, b]).";

  private final AbstractConfig config;

  /**
   * Reads the shared keys of {@code config}, whose definition has them (see {@link
   * #defineCatalog}), and checks that exactly one of {@code iceberg.type} and {@code
   * iceberg.catalog-impl} is set.
   *
   * @param userPrefix what the user writes before each key (the plugin's {@code rsm.config.}), for
   *     messages
   */
  public CatalogConfig(AbstractConfig config, String userPrefix) {
    this.config = config;
    String type = config.getString(ICEBERG_TYPE_CONFIG);
    String impl = config.getString(ICEBERG_CATALOG_IMPL_CONFIG);
    if (type == null && impl == null) {
      throw new ConfigException(
          "Missing required configuration \""
              + ICEBERG_TYPE_CONFIG
              + "\" (or \""
              + ICEBERG_CATALOG_IMPL_CONFIG
              + "\"): set "
              + userPrefix
              + ICEBERG_TYPE_CONFIG
              + " to one of "
              + CATALOG_TYPES);
    }
    if (type != null && impl != null) {
      throw new ConfigException(
          ICEBERG_TYPE_CONFIG,
          type,
          "set either "
              + ICEBERG_TYPE_CONFIG
              + " or "
              + ICEBERG_CATALOG_IMPL_CONFIG
              + ", not both");
    }
  }

  /** Adds the documented {@code iceberg.*} keys: type, catalog-impl, uri, warehouse, io-impl. */
  public static ConfigDef defineCatalog(ConfigDef def) {
    return def.define(
            ICEBERG_TYPE_CONFIG,
            Type.STRING,
            null,
            new OneOfOrNull(CATALOG_TYPES),
            Importance.HIGH,
            ICEBERG_TYPE_DOC)
        .define(
            ICEBERG_CATALOG_IMPL_CONFIG,
            Type.STRING,
            null,
            new NonBlankOrNull(),
            Importance.MEDIUM,
            ICEBERG_CATALOG_IMPL_DOC)
        .define(
            ICEBERG_URI_CONFIG,
            Type.STRING,
            null,
            new NonBlankOrNull(),
            Importance.HIGH,
            ICEBERG_URI_DOC)
        .define(
            ICEBERG_WAREHOUSE_CONFIG,
            Type.STRING,
            null,
            new NonBlankOrNull(),
            Importance.HIGH,
            ICEBERG_WAREHOUSE_DOC)
        .define(
            ICEBERG_IO_IMPL_CONFIG,
            Type.STRING,
            null,
            new NonBlankOrNull(),
            Importance.MEDIUM,
            ICEBERG_IO_IMPL_DOC);
  }

  /** Adds {@code catalog.name}. */
  public static ConfigDef defineCatalogName(ConfigDef def) {
    return def.define(
        CATALOG_NAME_CONFIG,
        Type.STRING,
        DEFAULT_CATALOG_NAME,
        new ConfigDef.NonEmptyStringWithoutControlChars(),
        Importance.MEDIUM,
        CATALOG_NAME_DOC);
  }

  /**
   * Adds {@code table.namespace}, documented as the namespace of the topic tables followed by
   * {@code use}, what the one defining it does with it.
   */
  public static ConfigDef defineTableNamespace(ConfigDef def, String use) {
    return def.define(
        TABLE_NAMESPACE_CONFIG,
        Type.STRING,
        DEFAULT_TABLE_NAMESPACE,
        new NamespaceValidator(),
        Importance.MEDIUM,
        TABLE_NAMESPACE_DOC + " " + use);
  }

  /** The catalog properties: every {@code iceberg.*} key with the prefix removed. */
  public Map<String, String> properties() {
    Map<String, String> out = new TreeMap<>();
    config
        .originalsWithPrefix(ICEBERG_PREFIX)
        .forEach(
            (key, value) -> {
              if (value != null) {
                out.put(key, value instanceof Password p ? p.value() : value.toString());
              }
            });
    return out;
  }

  public String name() {
    return config.getString(CATALOG_NAME_CONFIG);
  }

  /** What identifies the catalog in messages: its name and type (never its properties). */
  public String description() {
    return "'" + name() + "' (" + kind() + ")";
  }

  /**
   * {@link #description()} with the catalog's URI, without its query and user info (where a JDBC or
   * REST URI carries credentials): what a user is told to write through instead.
   */
  public String descriptionWithUri() {
    String uri = config.getString(ICEBERG_URI_CONFIG);
    if (uri == null) {
      return description();
    }
    int q = uri.indexOf('?');
    uri = (q >= 0 ? uri.substring(0, q) : uri).replaceAll("//[^/@]*@", "//");
    return "'" + name() + "' (" + kind() + ", uri " + uri + ")";
  }

  private String kind() {
    String type = config.getString(ICEBERG_TYPE_CONFIG);
    return type != null
        ? "type " + type
        : "catalog-impl " + config.getString(ICEBERG_CATALOG_IMPL_CONFIG);
  }

  /** The namespace of the topic tables. */
  public Namespace namespace() {
    return namespace(config.getString(TABLE_NAMESPACE_CONFIG));
  }

  /** A namespace written with dots between its levels ({@code a.b} is [a, b]). */
  public static Namespace namespace(String dotted) {
    return Namespace.of(dotted.split("\\."));
  }

  private static final class OneOfOrNull implements ConfigDef.Validator {
    private final List<String> allowed;

    OneOfOrNull(List<String> allowed) {
      this.allowed = allowed;
    }

    @Override
    public void ensureValid(String name, Object value) {
      if (value != null && !allowed.contains(value.toString().toLowerCase(Locale.ROOT))) {
        throw new ConfigException(name, value, "must be one of " + allowed);
      }
    }

    @Override
    public String toString() {
      return "null or one of " + allowed;
    }
  }

  private static final class NonBlankOrNull implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      if (value != null && value.toString().isBlank()) {
        throw new ConfigException(name, value, "must not be blank");
      }
    }

    @Override
    public String toString() {
      return "null or a non-blank string";
    }
  }

  /** The namespace rule: one or more non-empty names separated by dots. */
  private static final class NamespaceValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      String s = value == null ? "" : value.toString();
      if (s.isBlank() || Arrays.stream(s.split("\\.", -1)).anyMatch(String::isBlank)) {
        throw new ConfigException(
            name, value, "must be one or more non-empty names separated by dots");
      }
    }

    @Override
    public String toString() {
      return "non-empty names separated by dots";
    }
  }
}
