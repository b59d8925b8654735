package io.floe.rsm;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.catalog.CatalogDefaults;
import io.floe.catalog.CatalogStartup;
import io.floe.catalog.HadoopConf;
import io.floe.commit.SegmentCommitter;
import io.floe.fetch.FetchResources;
import io.floe.fetch.ReencodedSegmentCache;
import io.floe.fetch.StoredSegment;
import io.floe.maintenance.TableMaintenance;
import io.floe.rows.TableCodecs;
import io.floe.tier.CopyStep;
import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments;
import io.floe.tier.TieredSegments.CopyResult;
import io.floe.tier.TopicTables;
import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.Catalog;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a configured plugin works with, built by {@link #start} from the broker's settings: the
 * Iceberg catalog (a failure to build it is reported without credentials), checked by the storage
 * probe, the tiered segments on top of it, and a cache of opened segments. {@link #close} releases
 * them.
 */
final class StorageBackend implements AutoCloseable {
  // The plugin's log category before its parts had classes of their own: log configs name it.
  private static final Logger LOG = LoggerFactory.getLogger(FloeRemoteStorageManager.class);

  private final FloeRsmConfig config;
  private final Redactor redactor;
  private final TableCachingCatalog catalog;
  private final TieredSegments segments;
  private final Cache<String, StoredSegment> openSegments;
  private final boolean removeRows;
  private TableMaintenance maintenance;

  private StorageBackend(
      FloeRsmConfig config, Redactor redactor, Catalog catalog, FetchResources fetching) {
    this.config = config;
    this.redactor = redactor;
    this.catalog = new TableCachingCatalog(catalog, config.tableCacheExpirationMs());
    this.segments =
        new TieredSegments(
            new TopicTables(this.catalog, config.tableOptions()),
            new SegmentCommitter(
                config.commitMaxAttempts(),
                config.commitBackoffMinMs(),
                config.commitBackoffMaxMs()),
            config.indexIntervalBytes(),
            TableCodecs.of(config.registry()),
            fetching);
    // An opened segment keeps the readers of finished fetches for the next fetch that continues
    // them: release them when it leaves the cache (synchronously, so close() leaves nothing open,
    // and on the calling thread, inside a call FloeRemoteStorageManager runs with the plugin's
    // class loader).
    this.openSegments =
        Caffeine.newBuilder()
            .maximumSize(config.segmentCacheSize())
            .executor(Runnable::run)
            .<String, StoredSegment>removalListener((id, segment, cause) -> closeQuietly(segment))
            .build();
    this.removeRows = config.retentionMode() == FloeRsmConfig.RetentionMode.DELETE;
  }

  /**
   * Validates the configuration, builds the catalog and probes the storage under the warehouse.
   *
   * @throws ConfigException naming the key at fault, without credentials
   */
  static StorageBackend start(Map<String, ?> configs) {
    FloeRsmConfig config = new FloeRsmConfig(configs);
    Redactor redactor = new Redactor(config.sensitiveValues());
    LOG.info("Floe RSM configuration (credentials hidden): {}", config.effectiveConfig());
    for (String key : config.unknownKeys()) {
      LOG.warn(
          "Unknown Floe RSM configuration key '{}' is ignored (Iceberg catalog keys start with '{}')",
          key,
          FloeRsmConfig.ICEBERG_PREFIX);
    }
    // The JDBC drivers the plugin ships must be found even when DriverManager was initialised
    // before Kafka loaded the plugin in its own class loader.
    JdbcDrivers.registerVisibleTo(StorageBackend.class.getClassLoader());
    ReencodedSegmentCache fetchCache = FetchConfig.open(config, config.brokerId());
    Catalog catalog = null;
    try {
      catalog = buildCatalog(config, redactor);
      new StorageProbe(config, redactor, HadoopConf.create()).run();
    } catch (ConfigException e) {
      if (catalog != null) {
        closeCatalog(catalog, config, redactor);
      }
      fetchCache.close();
      throw e;
    }
    StorageBackend backend =
        new StorageBackend(
            config,
            redactor,
            catalog,
            new FetchResources(fetchCache, FetchConfig.readAhead(config)));
    LOG.info(
        "Floe RSM on broker {} uses Iceberg catalog {}, namespace {}, retention mode {}",
        config.brokerId(),
        config.catalogDescription(),
        config.namespace(),
        config.retentionMode());
    return backend;
  }

  private static Catalog buildCatalog(FloeRsmConfig config, Redactor redactor) {
    try {
      return CatalogStartup.build(
          config.catalogName(),
          CatalogDefaults.apply(config.catalogProperties()),
          HadoopConf.create());
    } catch (RuntimeException | LinkageError e) {
      ConfigException failure =
          new ConfigException(
              "Could not initialize Iceberg catalog "
                  + config.catalogDescription()
                  + ": "
                  + redactor.describe(e));
      failure.initCause(redactor.sanitize(e));
      throw failure;
    }
  }

  private static void closeCatalog(Catalog catalog, FloeRsmConfig config, Redactor redactor) {
    if (catalog instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException | RuntimeException e) {
        LOG.debug(
            "Closing Iceberg catalog {} failed: {}",
            config.catalogDescription(),
            redactor.describe(e));
      }
    }
  }

  ReencodedSegmentCache fetchCache() {
    return segments.fetching().cache();
  }

  /** How many readers of finished fetches the opened segments keep. */
  long idleReaders() {
    return segments.fetching().idleReaders().size();
  }

  FloeRsmConfig config() {
    return config;
  }

  Redactor redactor() {
    return redactor;
  }

  CopyResult copy(SegmentKey key, SegmentFiles files, Consumer<CopyStep> steps) {
    return segments.copy(key, files, steps);
  }

  /** The stored segment, opened once and kept in the cache for the fetches that follow. */
  StoredSegment open(SegmentKey key) {
    return openSegments.get(key.segmentId(), id -> segments.open(key));
  }

  /** Deletes as the retention mode says; the segment leaves the cache before and after. */
  void delete(SegmentKey key, DeleteReason reason) {
    openSegments.invalidate(key.segmentId());
    try {
      segments.delete(key, removeRows, reason);
    } finally {
      openSegments.invalidate(key.segmentId());
    }
  }

  /**
   * Starts expiring the snapshots of the tables this broker copies into, every {@link
   * FloeRsmConfig#SNAPSHOT_EXPIRY_INTERVAL_MS} (unless 0), on a thread of its own. Called from
   * configure, so the thread inherits the plugin's class loader as its context class loader, as the
   * broker's calls into the plugin run with it.
   */
  void startSnapshotExpiry(TableMaintenance.Listener listener) {
    long intervalMs = config.snapshotExpiryIntervalMs();
    if (intervalMs == 0) {
      LOG.info("Snapshot expiry is off ({} = 0)", FloeRsmConfig.SNAPSHOT_EXPIRY_INTERVAL_MS);
      return;
    }
    Catalog uncached = catalog.delegate(); // expiry refreshes and commits an instance of its own
    maintenance =
        new TableMaintenance(
                "floe-table-maintenance-" + config.brokerId(),
                intervalMs,
                segments.tables()::copiedTables,
                uncached::loadTable,
                listener)
            .start();
  }

  @Override
  public void close() {
    if (maintenance != null) {
      maintenance.close(); // before the catalog it uses
    }
    openSegments.invalidateAll();
    segments.fetching().close();
    try {
      catalog.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Closing Iceberg catalog {} failed: {}",
          config.catalogDescription(),
          redactor.describe(e));
    }
  }

  private void closeQuietly(StoredSegment segment) {
    if (segment == null) {
      return;
    }
    try {
      segment.close();
    } catch (RuntimeException e) {
      LOG.debug("Releasing the readers of a remote segment failed: {}", redactor.describe(e));
    }
  }
}
