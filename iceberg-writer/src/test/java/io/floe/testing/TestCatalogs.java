package io.floe.testing;

import io.floe.catalog.HadoopConf;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Real Iceberg catalogs for tests: a JdbcCatalog on SQLite, with a local-filesystem or S3
 * warehouse.
 */
public final class TestCatalogs {
  public static final String CATALOG_NAME = "floe";

  private TestCatalogs() {}

  public enum Storage {
    LOCAL,
    S3
  }

  /**
   * Catalog properties as a user would write them: JDBC on SQLite plus the warehouse and FileIO.
   */
  public static Map<String, String> properties(Path dir, Storage storage) {
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put("jdbc.schema-version", "V1");
    if (storage == Storage.S3) {
      String bucket = "floe-" + UUID.randomUUID().toString().substring(0, 8);
      LocalS3.get().createBucket(bucket);
      props.putAll(LocalS3.get().fileIoProperties());
      props.put(CatalogProperties.WAREHOUSE_LOCATION, "s3://" + bucket + "/warehouse");
    } else {
      props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toUri().toString());
    }
    return props;
  }

  public static JdbcCatalog jdbc(Path dir, Storage storage) {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(HadoopConf.create());
    catalog.initialize(CATALOG_NAME, properties(dir, storage));
    return catalog;
  }
}
