package io.floe.tier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.layout.TopicTableLayout;
import io.floe.layout.TopicTableOptions;
import io.floe.layout.TypedColumns;
import io.floe.typed.TypedRules;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds or creates the one table of a topic. The table name is the topic name made a valid
 * identifier (lower case, every character other than a-z, 0-9 and _ replaced by _). When that name
 * is taken by another topic (a name that maps to the same identifier, or a deleted topic with an
 * older id), the name gets a suffix derived from the topic id, so two topics never share a table.
 */
public final class TopicTables {
  private static final Logger LOG = LoggerFactory.getLogger(TopicTables.class);

  private static final Duration COPY_TABLE_IDLE = Duration.ofMinutes(10);

  private final Catalog catalog;
  private final TopicTableOptions options;
  private final Cache<String, Table> copyTables =
      Caffeine.newBuilder().expireAfterAccess(COPY_TABLE_IDLE).build();

  public TopicTables(Catalog catalog, TopicTableOptions options) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.options = Objects.requireNonNull(options, "options");
  }

  public Catalog catalog() {
    return catalog;
  }

  public Namespace namespace() {
    return options.namespace();
  }

  public static String baseTableName(String topic) {
    String name = topic.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return Character.isDigit(name.charAt(0)) ? "t_" + name : name;
  }

  static String suffixedTableName(String topic, String topicId) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(topicId.getBytes(StandardCharsets.UTF_8));
      return baseTableName(topic) + "_" + HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The table of this topic, if one was created already. */
  public Table find(String topic, String topicId) {
    for (String name : new String[] {baseTableName(topic), suffixedTableName(topic, topicId)}) {
      TableIdentifier id = TableIdentifier.of(options.namespace(), name);
      try {
        Table table = catalog.loadTable(id);
        if (belongsTo(table, topic, topicId)) {
          return table;
        }
      } catch (NoSuchTableException e) {
        // not created under this name
      }
    }
    return null;
  }

  /** The table of this topic, created on first use. */
  public Table resolve(String topic, String topicId) {
    for (String name : new String[] {baseTableName(topic), suffixedTableName(topic, topicId)}) {
      TableIdentifier id = TableIdentifier.of(options.namespace(), name);
      Table table = loadOrCreate(id, topic, topicId);
      if (belongsTo(table, topic, topicId)) {
        return table;
      }
      LOG.info(
          "Table {} belongs to topic {} (id {}); topic {} (id {}) uses another name",
          id,
          table.properties().get(TopicTableLayout.PROP_TOPIC),
          table.properties().get(TopicTableLayout.PROP_TOPIC_ID),
          topic,
          topicId);
    }
    throw new IllegalStateException(
        "No table name is free for topic "
            + topic
            + " (id "
            + topicId
            + ") in namespace "
            + options.namespace()
            + ": both "
            + baseTableName(topic)
            + " and "
            + suffixedTableName(topic, topicId)
            + " belong to other topics");
  }

  /**
   * The table of this topic for copies: resolved once, then the same instance, whose metadata every
   * commit through it keeps current (a commit refreshes it first), so a copy does not load the
   * table from the catalog each time. Planning against metadata another writer has moved on from is
   * safe: commit validation catches it and the commit retries on refreshed metadata. Call {@link
   * #forget} when a copy through it fails. An instance unused for {@link #COPY_TABLE_IDLE} is
   * dropped.
   */
  public Table forCopy(String topic, String topicId) {
    return copyTables.get(copyKey(topic, topicId), k -> resolve(topic, topicId));
  }

  /**
   * The tables this process copied into lately (those {@link #forCopy} holds): the ones whose
   * snapshots it keeps expiring.
   */
  public List<TableIdentifier> copiedTables() {
    List<TableIdentifier> ids = new ArrayList<>();
    for (Table table : copyTables.asMap().values()) {
      String name = table.name();
      ids.add(TableIdentifier.of(options.namespace(), name.substring(name.lastIndexOf('.') + 1)));
    }
    return ids;
  }

  /**
   * Drops the instance {@link #forCopy} holds for this topic (it may belong to a dropped table).
   */
  public void forget(String topic, String topicId) {
    copyTables.invalidate(copyKey(topic, topicId));
  }

  private static String copyKey(String topic, String topicId) {
    return topic + '\u0000' + topicId;
  }

  private static boolean belongsTo(Table table, String topic, String topicId) {
    Map<String, String> props = table.properties();
    return topic.equals(props.get(TopicTableLayout.PROP_TOPIC))
        && topicId.equals(props.get(TopicTableLayout.PROP_TOPIC_ID));
  }

  /**
   * The table {@link #resolve} would create for a topic that has none yet, under the topic's base
   * name, staged in a create transaction that is never committed: nothing is written to the catalog
   * or the warehouse. Null when a table of that name exists already.
   */
  public Table staged(String topic, String topicId) {
    TableIdentifier id = TableIdentifier.of(options.namespace(), baseTableName(topic));
    try {
      return newTable(id, topic, topicId).createTransaction().table();
    } catch (AlreadyExistsException e) {
      return null;
    }
  }

  private Catalog.TableBuilder newTable(TableIdentifier id, String topic, String topicId) {
    Map<String, String> props = new HashMap<>(options.tableProperties());
    props.put(TopicTableLayout.PROP_TOPIC, topic);
    props.put(TopicTableLayout.PROP_TOPIC_ID, topicId);
    TypedRules.TopicFormats formats = options.formatsFor(topic);
    Schema schema = TopicTableLayout.SCHEMA;
    if (formats.typed()) {
      schema = TypedColumns.schema(formats.key(), formats.value());
      props.putAll(formats.key().properties("key"));
      props.putAll(formats.value().properties("value"));
      props.put(
          TopicTableLayout.PROP_LAYOUT_VERSION,
          Integer.toString(TopicTableLayout.TYPED_LAYOUT_VERSION));
    }
    TopicTableLayout.payloadStatisticsOff(schema).forEach(props::putIfAbsent);
    return catalog
        .buildTable(id, schema)
        .withPartitionSpec(TopicTableLayout.partitionSpec(options.timeTransform()))
        .withSortOrder(TopicTableLayout.sortOrder())
        .withProperties(props);
  }

  private Table loadOrCreate(TableIdentifier id, String topic, String topicId) {
    try {
      return catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      ensureNamespace();
      try {
        Table created = newTable(id, topic, topicId).create();
        LOG.info("Created table {} for topic {} (id {})", id, topic, topicId);
        return created;
      } catch (AlreadyExistsException raced) {
        return catalog.loadTable(id);
      }
    }
  }

  private void ensureNamespace() {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(options.namespace())) {
      try {
        namespaces.createNamespace(options.namespace());
      } catch (RuntimeException e) {
        // Another copier or broker may have created it first; some catalogs (JDBC on SQLite) report
        // that race as
        // a constraint violation rather than AlreadyExistsException.
        if (!namespaces.namespaceExists(options.namespace())) {
          throw e;
        }
      }
    }
  }
}
