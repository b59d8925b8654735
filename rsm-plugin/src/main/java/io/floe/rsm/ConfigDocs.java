package io.floe.rsm;

import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Prints the configuration reference as the README's Markdown table, straight from {@link
 * FloeRsmConfig#CONFIG_DEF} (a test checks the README holds exactly this table). Run: {@code java
 * -cp ... io.floe.rsm.ConfigDocs}.
 */
public final class ConfigDocs {
  private ConfigDocs() {}

  public static String markdownTable() {
    StringBuilder out = new StringBuilder();
    out.append("| key (after `rsm.config.`) | type | default | valid values | meaning |\n");
    out.append("|---|---|---|---|---|\n");
    List<ConfigDef.ConfigKey> keys =
        FloeRsmConfig.CONFIG_DEF.configKeys().values().stream().toList();
    for (ConfigDef.ConfigKey key : keys) {
      out.append("| `")
          .append(key.name)
          .append("` | ")
          .append(key.type.name().toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(defaultOf(key))
          .append(" | ")
          .append(key.validator == null ? "" : cell(key.validator.toString()))
          .append(" | ")
          .append(cell(key.documentation))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String defaultOf(ConfigDef.ConfigKey key) {
    if (!key.hasDefault()) {
      return "required";
    }
    return key.defaultValue == null ? "(none)" : "`" + key.defaultValue + "`";
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  public static void main(String[] args) {
    System.out.print(markdownTable());
  }
}
