package io.floe.rsm;

import io.floe.catalog.ConfigMarkdown;

/**
 * Prints the configuration reference as the README's Markdown table, straight from {@link
 * FloeRsmConfig#CONFIG_DEF} (a test checks the README holds exactly this table). Run: {@code java
 * -cp ... io.floe.rsm.ConfigDocs}.
 */
public final class ConfigDocs {
  private ConfigDocs() {}

  public static String markdownTable() {
    return ConfigMarkdown.table(FloeRsmConfig.CONFIG_DEF, "key (after `rsm.config.`)");
  }

  public static void main(String[] args) {
    System.out.print(markdownTable());
  }
}
