package io.floe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.floe.testing.LocalS3;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A broker whose Floe configuration is wrong does not start, and says which key is wrong, in the
 * exception and in its log, without quoting a secret (neither the right one nor a wrong one a user
 * typed).
 */
class MisconfiguredBrokerTest {
  private static final String WRONG_SECRET = "wrong-secret-do-not-log-either";

  @TempDir Path dir;

  /**
   * A misconfiguration: catalog properties replaced (no "iceberg." prefix), other RSM keys, the key
   * to name.
   */
  static Stream<Arguments> misconfigurations() {
    return Stream.of(
        Arguments.of(
            "unknown retention mode",
            Map.of(),
            Map.of("retention.mode", "forever"),
            List.of("retention.mode")),
        Arguments.of(
            "unknown catalog type",
            Map.of("type", "cassandra"),
            Map.of(),
            List.of("iceberg.type", "cassandra")),
        Arguments.of(
            "missing bucket",
            Map.of("warehouse", "s3://floe-no-such-bucket/warehouse"),
            Map.of(),
            List.of("iceberg.warehouse", "floe-no-such-bucket")),
        Arguments.of(
            "wrong S3 secret",
            Map.of("s3.secret-access-key", WRONG_SECRET),
            Map.of(),
            List.of("iceberg.s3.secret-access-key")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("misconfigurations")
  @Timeout(120)
  void brokerStartupFailsNamingTheKey(
      String what,
      Map<String, String> catalogChanges,
      Map<String, String> rsmConfig,
      List<String> named) {
    Map<String, String> catalog = new HashMap<>(FloeCluster.s3CatalogProperties(dir));
    catalog.putAll(catalogChanges);
    StringWriter log = new StringWriter();
    Throwable thrown;
    try (LogCapture ignored = new LogCapture(log)) {
      thrown = catchThrowable(() -> FloeCluster.start(catalog, rsmConfig).close());
    }
    assertThat(thrown).as(what).isNotNull();
    Throwable config = thrown;
    while (config != null && !(config instanceof ConfigException)) {
      config = config.getCause();
    }
    StringWriter trace = new StringWriter();
    thrown.printStackTrace(new PrintWriter(trace));
    assertThat(config).as("a ConfigException in\n%s", trace).isNotNull();
    for (String text : named) {
      assertThat(config.getMessage()).as(what).contains(text);
    }
    assertThat(trace.toString()).doesNotContain(LocalS3.SECRET_KEY).doesNotContain(WRONG_SECRET);
    assertThat(log.toString())
        .as("the broker's log")
        .contains(named.get(0))
        .doesNotContain(LocalS3.SECRET_KEY)
        .doesNotContain(WRONG_SECRET);
  }

  /** Copies everything logged (at the levels log4j2-test.xml lets through) while it is open. */
  private static final class LogCapture implements AutoCloseable {
    private final WriterAppender appender;

    LogCapture(StringWriter target) {
      appender =
          WriterAppender.newBuilder()
              .setName("capture")
              .setTarget(target)
              .setLayout(
                  PatternLayout.newBuilder().withPattern("%level %c{1}: %msg%n%throwable").build())
              .build();
      appender.start();
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      context.getConfiguration().getRootLogger().addAppender(appender, null, null);
      context.updateLoggers();
    }

    @Override
    public void close() {
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      context.getConfiguration().getRootLogger().removeAppender("capture");
      context.updateLoggers();
      appender.stop();
    }
  }
}
