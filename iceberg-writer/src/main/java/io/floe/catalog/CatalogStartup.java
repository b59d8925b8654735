package io.floe.catalog;

import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the Iceberg catalog the plugin and the head view work with, surviving the start of several
 * of them at once against a fresh JDBC catalog.
 *
 * <p>Iceberg's JdbcCatalog creates its tables when they are missing and, with {@code
 * jdbc.schema-version=V1}, adds the view column when it is missing: check, then act. Brokers that
 * start together on an empty database race; each checks, each alters, and all but one fail
 * ("duplicate column name: iceberg_type" on SQLite, "column already exists" on PostgreSQL), so a
 * broker of a new three-broker cluster may not start at all. That initialization is idempotent, so
 * it is tried again: the next attempt finds the tables as the winner left them. A failure that
 * lasts (a wrong URI, a database that is down) is thrown after {@link #ATTEMPTS} attempts, within
 * about a second.
 */
public final class CatalogStartup {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogStartup.class);

  static final int ATTEMPTS = 3;
  static final long PAUSE_MS = 200;

  private CatalogStartup() {}

  /** {@link CatalogUtil#buildIcebergCatalog}, tried again when the catalog's database refuses. */
  public static Catalog build(String name, Map<String, String> properties, Object hadoopConf) {
    for (int attempt = 1; ; attempt++) {
      try {
        return CatalogUtil.buildIcebergCatalog(name, properties, hadoopConf);
      } catch (UncheckedSQLException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
        // Iceberg's own message only: the cause may quote the database's connection details.
        LOG.info(
            "Initializing Iceberg catalog '{}' failed ({}), as it does while another broker"
                + " initializes the same database: attempt {} of {} in {} ms",
            name,
            e.getMessage(),
            attempt + 1,
            ATTEMPTS,
            PAUSE_MS * attempt);
        try {
          Thread.sleep(PAUSE_MS * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
