package io.floe.headview;

import io.floe.catalog.ConfigMarkdown;

/**
 * Prints the settings reference as head-view/README.md's Markdown tables, straight from {@link
 * HeadViewConfig#CONFIG_DEF} and its prefixes (a test checks the README holds exactly these
 * tables). Run: {@code java -cp ... io.floe.headview.HeadViewConfigDocs}.
 */
public final class HeadViewConfigDocs {
  private HeadViewConfigDocs() {}

  public static String markdown() {
    StringBuilder out = new StringBuilder(ConfigMarkdown.table(HeadViewConfig.CONFIG_DEF, "key"));
    out.append("\n| keys | meaning |\n");
    out.append("|---|---|\n");
    HeadViewConfig.PREFIX_DOCS.forEach(
        (prefix, doc) ->
            out.append("| `")
                .append(prefix)
                .append("*` | ")
                .append(ConfigMarkdown.cell(doc))
                .append(" |\n"));
    return out.toString();
  }

  public static void main(String[] args) {
    System.out.print(markdown());
  }
}
