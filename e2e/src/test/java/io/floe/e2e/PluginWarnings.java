package io.floe.e2e;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The warnings and errors the plugin logs ({@code io.floe.*} categories, every broker of this JVM)
 * while attached: what an operator would see in the broker logs during a scenario.
 */
final class PluginWarnings implements AutoCloseable {
  private static final String CATEGORY = "io.floe";

  private final List<String> messages = new ArrayList<>();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final AbstractAppender appender =
      new AbstractAppender("floe-plugin-warnings", null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
          if (event.getLevel().isMoreSpecificThan(Level.WARN)
              && event.getLoggerName().startsWith(CATEGORY)) {
            synchronized (messages) {
              messages.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
          }
        }
      };

  PluginWarnings() {
    appender.start();
    loggerConfig().addAppender(appender, Level.WARN, null);
    context.updateLoggers();
  }

  private LoggerConfig loggerConfig() {
    return context.getConfiguration().getLoggerConfig(CATEGORY);
  }

  /** The messages so far, and forgets them. */
  List<String> drain() {
    synchronized (messages) {
      List<String> out = new ArrayList<>(messages);
      messages.clear();
      return out;
    }
  }

  @Override
  public void close() {
    loggerConfig().removeAppender(appender.getName());
    context.updateLoggers();
    appender.stop();
  }
}
