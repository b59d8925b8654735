package io.floe.headview;

import io.floe.layout.TopicTableOptions;
import io.floe.tier.TopicTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tiered topics whose first segment is not tiered yet, so that have no table: the head view lists
 * them and serves each as the table the plugin will create for it (staged in a create transaction,
 * never committed).
 */
final class UntieredTopics {
  private static final Logger LOG = LoggerFactory.getLogger(UntieredTopics.class);

  private final Catalog catalog;
  private final TopicTables topicTables;
  private final KafkaHead kafka;
  private final HeadViewConfig config;

  UntieredTopics(Catalog catalog, KafkaHead kafka, HeadViewConfig config) {
    this.catalog = catalog;
    this.topicTables =
        new TopicTables(
            catalog,
            TopicTableOptions.builder()
                .namespace(config.namespace())
                .typedRules(config.typedRules())
                .build());
    this.kafka = kafka;
    this.config = config;
  }

  /**
   * The catalog's tables of {@code ns}, plus, in the topic tables' namespace, the tables of tiered
   * topics not tiered yet (see {@link #table}). Those are left out, with a warning, when Kafka
   * cannot be asked.
   */
  ListTablesResponse listTables(Namespace ns) {
    List<TableIdentifier> tables = new ArrayList<>();
    boolean topicNamespace = ns.equals(topicTables.namespace());
    try {
      tables.addAll(CatalogHandlers.listTables(catalog, ns).identifiers());
    } catch (NoSuchNamespaceException e) {
      if (!topicNamespace) {
        throw e; // the topic namespace is created with the first table: before that it holds only
        // untiered topics
      }
    }
    if (topicNamespace) {
      try {
        Map<String, List<String>> topicsByName = new TreeMap<>();
        kafka
            .tieredTopics(topic -> true)
            .forEach(
                t ->
                    topicsByName
                        .computeIfAbsent(TopicTables.baseTableName(t), n -> new ArrayList<>())
                        .add(t));
        topicsByName.forEach(
            (name, topics) -> {
              TableIdentifier id = TableIdentifier.of(ns, name);
              if (topics.size() == 1 && !tables.contains(id)) {
                tables.add(id);
              }
            });
      } catch (KafkaHead.KafkaUnavailableException e) {
        LOG.warn(
            "Kafka unavailable: listing {} without the tables of topics not tiered yet ({})",
            ns,
            e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceUnavailableException("Interrupted while listing the tiered topics");
      }
    }
    return ListTablesResponse.builder().addAll(tables).build();
  }

  /**
   * Throws {@link NoSuchTableException} unless {@code id} is a table of the catalog or of a topic
   * not tiered yet.
   */
  void tableExists(TableIdentifier id) {
    try {
      CatalogHandlers.tableExists(catalog, id);
    } catch (NoSuchTableException e) {
      table(id, e);
    }
  }

  /**
   * A tiered topic whose first segment is not tiered yet has no table: it is served as the table
   * the plugin will create for it (staged, never committed), so its whole head is visible from the
   * first record on.
   */
  Table table(TableIdentifier id, NoSuchTableException notFound) {
    if (!id.namespace().equals(topicTables.namespace())) {
      throw notFound;
    }
    try {
      List<String> topics =
          kafka.tieredTopics(topic -> TopicTables.baseTableName(topic).equals(id.name()));
      if (topics.size() != 1) {
        if (topics.size() > 1) {
          LOG.debug(
              "Tiered topics {} all map to table {}: none is served before it has a table",
              topics,
              id);
        }
        throw notFound;
      }
      KafkaHead.TopicInfo info = kafka.describe(topics.get(0));
      if (info == null) {
        throw notFound;
      }
      Table staged = topicTables.staged(topics.get(0), info.topicId());
      if (staged == null) {
        // A table of that name exists now: the topic's first copy created it after the caller's
        // lookup missed it.
        return catalog.loadTable(id);
      }
      return staged;
    } catch (KafkaHead.KafkaUnavailableException e) {
      if (config.onKafkaError() == HeadViewConfig.OnKafkaError.COMMITTED) {
        throw notFound;
      }
      throw new ServiceUnavailableException(
          "Kafka is unavailable, so whether table %s is a tiered topic not tiered yet cannot be told: %s",
          id, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceUnavailableException("Interrupted while looking up the topic of %s", id);
    }
  }
}
