package io.floe.headview;

import io.floe.catalog.ConfigMarkdown;
import io.floe.typed.TypedRules;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prints the settings reference as head-view/README.md's Markdown tables, straight from {@link
 * HeadViewConfig#CONFIG_DEF} and its prefixes (a test checks the README holds exactly these
 * tables). Run: {@code java -cp ... io.floe.headview.HeadViewConfigDocs}.
 */
public final class HeadViewConfigDocs {
  /** What each prefix's keys are for, in the order of the reference. */
  static final Map<String, String> PREFIX_DOCS = prefixDocs();

  private HeadViewConfigDocs() {}

  public static String markdown() {
    StringBuilder out = new StringBuilder(ConfigMarkdown.table(HeadViewConfig.CONFIG_DEF, "key"));
    out.append("\n| keys | meaning |\n");
    out.append("|---|---|\n");
    PREFIX_DOCS.forEach(
        (prefix, doc) ->
            out.append("| `")
                .append(prefix)
                .append("*` | ")
                .append(ConfigMarkdown.cell(doc))
                .append(" |\n"));
    return out.toString();
  }

  private static Map<String, String> prefixDocs() {
    Map<String, String> docs = new LinkedHashMap<>();
    docs.put(
        HeadViewConfig.ICEBERG_PREFIX,
        "Backing catalog properties, prefix removed, given to Iceberg's CatalogUtil.buildIcebergCatalog"
            + " (type or catalog-impl, uri, warehouse, io-impl, s3.*, ...): the values the plugin has"
            + " under rsm.config.iceberg.*. Values are never logged.");
    docs.put(
        HeadViewConfig.KAFKA_PREFIX,
        "Kafka client properties, prefix removed (bootstrap.servers, security settings, ...). The"
            + " service forces isolation.level=read_committed, no group, no auto commit, no topic"
            + " auto-creation; fetch.max.wait.ms is 10 unless set here (a read asks only for records"
            + " Kafka holds). Values are never logged.");
    docs.put(
        HeadViewConfig.CLIENT_PREFIX,
        "Sent to REST clients as /v1/config defaults, prefix removed (for example the FileIO settings"
            + " they need to read the files).");
    docs.put(
        HeadViewConfig.HEAD_WRITE_PREFIX,
        "Iceberg write.* table properties of head files, over the table's own"
            + " (head.write.parquet.compression-codec=snappy sets write.parquet.compression-codec)."
            + " Defaults: "
            + new TreeMap<>(HeadViewConfig.HEAD_WRITE_DEFAULTS)
            + ".");
    docs.put(
        TypedRules.RULE_PREFIX,
        "The plugin's typed-value rules (see types.rules), so that a tiered topic with no table yet"
            + " is served as the table the plugin will create.");
    return docs;
  }

  public static void main(String[] args) {
    System.out.print(markdown());
  }
}
