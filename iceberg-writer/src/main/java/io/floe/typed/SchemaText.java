package io.floe.typed;

import java.util.Map;
import java.util.Objects;

/**
 * A registry schema as text: its id, format, the schema and the text of every schema it references
 * by the name it uses for it.
 */
public record SchemaText(
    int id, ColumnFormat.Format format, String text, Map<String, String> references) {
  public SchemaText {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(text, "text");
    references = Map.copyOf(references);
  }
}
