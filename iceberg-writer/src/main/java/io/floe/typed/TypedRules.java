package io.floe.typed;

import io.floe.typed.ColumnFormat.Format;
import io.floe.typed.ColumnFormat.SchemaSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The per-topic choice of key and value formats: ordered rules, each a topic regex and the formats
 * of the topics it matches; the first rule that matches a topic wins, and a topic no rule matches
 * keeps binary keys and values. Kafka passes the plugin only broker-level settings (and rejects
 * unknown topic configs), so the rules live in the plugin's configuration; a table records the
 * formats it was created with ({@link ColumnFormat#properties}), so a rule change only affects new
 * tables.
 */
public final class TypedRules {
  public static final String RULES_CONFIG = "types.rules";
  public static final String RULE_PREFIX = "types.rule.";
  static final String TOPICS = "topics";
  static final String TOPIC_PLACEHOLDER = "{topic}";

  static final String RULES_DOC =
      "Names of the rules that give topics typed key and value columns, in order: the first rule "
          + "whose topics regex matches a topic's whole name decides; topics no rule matches keep "
          + "binary keys and values. Each rule N is set by "
          + RULE_PREFIX
          + "N.topics (a regex, required), "
          + RULE_PREFIX
          + "N.key.format and N.value.format (binary, avro, protobuf or json-schema; default "
          + "binary), N.key.schema and N.value.schema (wire: the schema id in each record's schema "
          + "registry wire-format prefix, the default; latest: the latest schema of a subject, for "
          + "payloads written without the prefix) and N.key.subject and N.value.subject (for "
          + "latest; default {topic}-key and {topic}-value, where {topic} stands for the topic's "
          + "name). A table keeps the formats it was created with.";

  private static final ConfigDef RULE_DEF = ruleDef();

  private final List<Rule> rules;

  /**
   * Reads the rules of {@code config}, whose definition has {@link #RULES_CONFIG}.
   *
   * @param userPrefix what the user writes before each key (the plugin's {@code rsm.config.}), for
   *     messages
   */
  public TypedRules(AbstractConfig config, String userPrefix) {
    List<Rule> parsed = new ArrayList<>();
    for (String name : config.getList(RULES_CONFIG)) {
      String prefix = RULE_PREFIX + name + ".";
      parsed.add(parse(name, config.originalsWithPrefix(prefix), userPrefix + prefix));
    }
    this.rules = List.copyOf(parsed);
  }

  /** Adds {@link #RULES_CONFIG}. */
  public static ConfigDef define(ConfigDef def) {
    return def.define(RULES_CONFIG, Type.LIST, "", new RuleNames(), Importance.MEDIUM, RULES_DOC);
  }

  /** Whether any rule gives a typed key or value (then a registry must be configured). */
  public boolean anyTyped() {
    for (Rule rule : rules) {
      if (rule.key.format != Format.BINARY || rule.value.format != Format.BINARY) {
        return true;
      }
    }
    return false;
  }

  /** The key and value formats a new table of {@code topic} gets. */
  public TopicFormats formatsFor(String topic) {
    for (Rule rule : rules) {
      if (rule.topics.matcher(topic).matches()) {
        return new TopicFormats(rule.key.forTopic(topic), rule.value.forTopic(topic));
      }
    }
    return TopicFormats.BINARY;
  }

  /** A topic's key and value formats. */
  public record TopicFormats(ColumnFormat key, ColumnFormat value) {
    public static final TopicFormats BINARY =
        new TopicFormats(ColumnFormat.BINARY, ColumnFormat.BINARY);

    public boolean typed() {
      return key.typed() || value.typed();
    }
  }

  private record Rule(Pattern topics, ColumnTemplate key, ColumnTemplate value) {}

  /** A column's format with its subject still a template ({topic} not yet replaced). */
  private record ColumnTemplate(Format format, SchemaSource source, String subject) {
    ColumnFormat forTopic(String topic) {
      if (format == Format.BINARY) {
        return ColumnFormat.BINARY;
      }
      return new ColumnFormat(
          format,
          source,
          source == SchemaSource.LATEST ? subject.replace(TOPIC_PLACEHOLDER, topic) : null);
    }
  }

  private static Rule parse(String name, Map<String, Object> settings, String keyPrefix) {
    for (String key : settings.keySet()) {
      if (!RULE_DEF.names().contains(key)) {
        throw new ConfigException(
            keyPrefix + key,
            settings.get(key),
            "unknown setting of rule '" + name + "': expected one of " + RULE_DEF.names());
      }
    }
    Map<String, Object> values;
    try {
      values = RULE_DEF.parse(settings);
    } catch (ConfigException e) {
      throw new ConfigException(
          "Invalid rule '" + name + "' (" + keyPrefix + "*): " + e.getMessage());
    }
    Pattern topics;
    try {
      topics = Pattern.compile((String) values.get(TOPICS));
    } catch (PatternSyntaxException e) {
      throw new ConfigException(keyPrefix + TOPICS, values.get(TOPICS), e.getDescription());
    }
    return new Rule(topics, column(values, "key", keyPrefix), column(values, "value", keyPrefix));
  }

  private static ColumnTemplate column(Map<String, Object> values, String column, String prefix) {
    Format format;
    SchemaSource source;
    try {
      format = Format.parse((String) values.get(column + ".format"));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          prefix + column + ".format", values.get(column + ".format"), e.getMessage());
    }
    try {
      source = SchemaSource.parse((String) values.get(column + ".schema"));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          prefix + column + ".schema", values.get(column + ".schema"), e.getMessage());
    }
    String subject = (String) values.get(column + ".subject");
    if (subject == null) {
      subject = TOPIC_PLACEHOLDER + "-" + column;
    } else if (source != SchemaSource.LATEST) {
      throw new ConfigException(
          prefix + column + ".subject",
          subject,
          "a subject is only used when " + prefix + column + ".schema is latest");
    }
    return new ColumnTemplate(format, source, subject);
  }

  /** Rule names: letters, digits, _ and -, each once. */
  private static final class RuleNames implements ConfigDef.Validator {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

    @Override
    public void ensureValid(String name, Object value) {
      @SuppressWarnings("unchecked")
      List<String> names = (List<String>) value;
      for (int i = 0; i < names.size(); i++) {
        if (!NAME.matcher(names.get(i)).matches()) {
          throw new ConfigException(name, value, "rule names are letters, digits, _ and -");
        }
        if (names.subList(0, i).contains(names.get(i))) {
          throw new ConfigException(name, value, "rule '" + names.get(i) + "' is named twice");
        }
      }
    }

    @Override
    public String toString() {
      return "rule names (letters, digits, _ and -), each once";
    }
  }

  private static ConfigDef ruleDef() {
    ConfigDef def =
        new ConfigDef()
            .define(
                TOPICS,
                Type.STRING,
                ConfigDef.NO_DEFAULT_VALUE,
                new ConfigDef.NonEmptyString(),
                Importance.HIGH,
                "Regex a topic's whole name must match");
    for (String column : List.of("key", "value")) {
      def.define(column + ".format", Type.STRING, "binary", Importance.HIGH, column + " format")
          .define(column + ".schema", Type.STRING, "wire", Importance.MEDIUM, "schema source")
          .define(column + ".subject", Type.STRING, null, Importance.LOW, "subject for latest");
    }
    return def;
  }
}
