package io.floe.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.typed.ColumnFormat.Format;
import io.floe.typed.ColumnFormat.SchemaSource;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class TypedRulesTest {

  @Test
  void theFirstMatchingRuleDecidesAndOtherTopicsStayBinary() {
    TypedRules rules =
        rules(
            Map.of(
                "types.rules", "orders,all",
                "types.rule.orders.topics", "orders\\..*",
                "types.rule.orders.value.format", "avro",
                "types.rule.orders.key.format", "json-schema",
                "types.rule.orders.key.schema", "latest",
                "types.rule.all.topics", "shop\\..*|orders\\.eu",
                "types.rule.all.value.format", "protobuf"));

    TypedRules.TopicFormats orders = rules.formatsFor("orders.eu");
    assertThat(orders.value()).isEqualTo(new ColumnFormat(Format.AVRO, SchemaSource.WIRE, null));
    assertThat(orders.key())
        .isEqualTo(new ColumnFormat(Format.JSON_SCHEMA, SchemaSource.LATEST, "orders.eu-key"));
    assertThat(rules.formatsFor("shop.carts").value().format()).isEqualTo(Format.PROTOBUF);
    assertThat(rules.formatsFor("shop.carts").key()).isEqualTo(ColumnFormat.BINARY);
    assertThat(rules.formatsFor("xorders.eu").typed())
        .as("the regex matches whole names")
        .isFalse();
    assertThat(rules(Map.of()).formatsFor("orders.eu").typed()).isFalse();
  }

  @Test
  void aSubjectTemplateNamesTheTopic() {
    TypedRules rules =
        rules(
            Map.of(
                "types.rules", "r",
                "types.rule.r.topics", ".*",
                "types.rule.r.value.format", "avro",
                "types.rule.r.value.schema", "latest",
                "types.rule.r.value.subject", "com.shop.{topic}"));
    assertThat(rules.formatsFor("carts").value().subject()).isEqualTo("com.shop.carts");
  }

  @Test
  void aBadRuleFailsNamingItsKey() {
    assertThatThrownBy(
            () ->
                rules(
                    Map.of(
                        "types.rules", "r",
                        "types.rule.r.topics", ".*",
                        "types.rule.r.value.format", "thrift")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("rsm.config.types.rule.r.value.format")
        .hasMessageContaining("expected binary, avro, protobuf or json-schema");
    assertThatThrownBy(() -> rules(Map.of("types.rules", "r", "types.rule.r.value.format", "avro")))
        .hasMessageContaining("Invalid rule 'r' (rsm.config.types.rule.r.*)")
        .hasMessageContaining("topics");
    assertThatThrownBy(
            () -> rules(Map.of("types.rules", "r", "types.rule.r.topics", "(", "x", "y")))
        .hasMessageContaining("rsm.config.types.rule.r.topics");
    assertThatThrownBy(
            () ->
                rules(
                    Map.of(
                        "types.rules", "r",
                        "types.rule.r.topics", ".*",
                        "types.rule.r.value.fromat", "avro")))
        .hasMessageContaining("rsm.config.types.rule.r.value.fromat")
        .hasMessageContaining("unknown setting of rule 'r'");
    assertThatThrownBy(
            () ->
                rules(
                    Map.of(
                        "types.rules", "r",
                        "types.rule.r.topics", ".*",
                        "types.rule.r.value.format", "avro",
                        "types.rule.r.value.subject", "s")))
        .hasMessageContaining("only used when rsm.config.types.rule.r.value.schema is latest");
  }

  @Test
  void ruleNamesAreCheckedAtStart() {
    assertThatThrownBy(() -> rules(Map.of("types.rules", "a,a")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("types.rules")
        .hasMessageContaining("rule 'a' is named twice");
    assertThatThrownBy(() -> rules(Map.of("types.rules", "a.b")))
        .hasMessageContaining("rule names are letters, digits, _ and -");
  }

  @Test
  void aTableRecordsItsFormatsAndTablesWithoutThemAreBinary() {
    ColumnFormat latest = new ColumnFormat(Format.PROTOBUF, SchemaSource.LATEST, "s-value");
    assertThat(ColumnFormat.fromProperties(latest.properties("value"), "value")).isEqualTo(latest);
    ColumnFormat wire = new ColumnFormat(Format.AVRO, SchemaSource.WIRE, null);
    assertThat(ColumnFormat.fromProperties(wire.properties("key"), "key")).isEqualTo(wire);
    assertThat(ColumnFormat.fromProperties(Map.of(), "value")).isEqualTo(ColumnFormat.BINARY);
  }

  private static TypedRules rules(Map<String, String> settings) {
    AbstractConfig config = new AbstractConfig(TypedRules.define(new ConfigDef()), settings);
    return new TypedRules(config, "rsm.config.");
  }
}
