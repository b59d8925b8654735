package io.floe.headview;

import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Prints the settings reference as head-view/README.md's Markdown tables, straight from {@link
 * HeadViewConfig#CONFIG_DEF} and its prefixes, the way the plugin's {@code ConfigDocs} does (a test
 * checks the README holds exactly these tables). Run: {@code java -cp ...
 * io.floe.headview.HeadViewConfigDocs}.
 */
public final class HeadViewConfigDocs {
  private HeadViewConfigDocs() {}

  public static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("| key | type | default | valid values | meaning |\n");
    out.append("|---|---|---|---|---|\n");
    for (ConfigDef.ConfigKey key : HeadViewConfig.CONFIG_DEF.configKeys().values()) {
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
    out.append("\n| keys | meaning |\n");
    out.append("|---|---|\n");
    HeadViewConfig.PREFIX_DOCS.forEach(
        (prefix, doc) ->
            out.append("| `").append(prefix).append("*` | ").append(cell(doc)).append(" |\n"));
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
    System.out.print(markdown());
  }
}
