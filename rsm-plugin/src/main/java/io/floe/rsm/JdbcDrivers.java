package io.floe.rsm;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers with {@link DriverManager} the JDBC drivers the plugin's class loader sees (those Floe
 * ships, like sqlite-jdbc and the PostgreSQL driver, and any placed beside them).
 *
 * <p>Why: DriverManager looks for service-provider drivers once per JVM, with the context class
 * loader of whichever thread touches it first. On a broker that is usually the broker's own class
 * loader, before Kafka loads the plugin in its own one ({@code
 * remote.log.storage.manager.class.path}), so the plugin's drivers are never registered and the
 * JDBC catalog fails with "No suitable driver found". Registering them from the plugin's loader
 * fixes that. DriverManager hands a registered driver only to callers whose class loader sees the
 * same driver class; Iceberg's JDBC client pool, the caller here, is loaded by the plugin's loader,
 * which sees it, so the drivers themselves are registered and no wrapper is needed.
 *
 * <p>Each driver class is handled once per JVM, not on every configure; a provider that cannot be
 * loaded is logged and skipped.
 */
final class JdbcDrivers {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcDrivers.class);

  /** Driver classes already handled (weakly, so a discarded plugin loader can be collected). */
  private static final Map<Class<?>, Boolean> HANDLED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private JdbcDrivers() {}

  /**
   * Registers every JDBC driver {@code loader} sees that was not handled before.
   *
   * @return the drivers this call registered (class name and version)
   */
  static List<String> registerVisibleTo(ClassLoader loader) {
    List<String> registered = new ArrayList<>();
    List<String> present = new ArrayList<>();
    Iterator<ServiceLoader.Provider<Driver>> providers =
        ServiceLoader.load(Driver.class, loader).stream().iterator();
    while (true) {
      ServiceLoader.Provider<Driver> provider;
      try {
        if (!providers.hasNext()) {
          break;
        }
        provider = providers.next();
      } catch (ServiceConfigurationError e) {
        LOG.warn("A JDBC driver provider could not be loaded and is skipped: {}", e.toString());
        continue;
      }
      register(provider, registered, present);
    }
    if (!registered.isEmpty() || !present.isEmpty()) {
      LOG.info(
          "JDBC drivers the plugin sees: registered {}, registered before {}", registered, present);
    }
    return registered;
  }

  private static void register(
      ServiceLoader.Provider<Driver> provider, List<String> registered, List<String> present) {
    Class<? extends Driver> type;
    try {
      type = provider.type();
    } catch (ServiceConfigurationError | LinkageError e) {
      LOG.warn("A JDBC driver provider could not be loaded and is skipped: {}", e.toString());
      return;
    }
    if (HANDLED.putIfAbsent(type, Boolean.TRUE) != null) {
      return;
    }
    if (isRegistered(type)) {
      present.add(type.getName());
      return;
    }
    try {
      // Most drivers register an instance of themselves when their class is initialised, which
      // creating this instance does; register this one only if that did not happen.
      Driver driver = provider.get();
      if (!isRegistered(type)) {
        DriverManager.registerDriver(driver);
      }
      registered.add(
          type.getName() + " " + driver.getMajorVersion() + "." + driver.getMinorVersion());
    } catch (ServiceConfigurationError | LinkageError | RuntimeException | SQLException e) {
      LOG.warn(
          "JDBC driver {} could not be registered and is skipped: {}",
          type.getName(),
          e.toString());
    }
  }

  /** Whether a driver of exactly this class is registered (as far as this class's loader sees). */
  private static boolean isRegistered(Class<?> type) {
    return DriverManager.drivers().anyMatch(d -> d.getClass() == type);
  }
}
