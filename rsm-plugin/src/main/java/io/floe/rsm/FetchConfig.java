package io.floe.rsm;

import io.floe.fetch.ReadAheadPool;
import io.floe.fetch.ReencodedSegmentCache;
import java.io.UncheckedIOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * How fetches are served (keys under {@code fetch.}): the local cache of re-encoded segments and
 * the threads that read rows ahead of the batches being re-encoded, added to the plugin's {@link
 * ConfigDef} by {@link #define} and built from the parsed configuration by {@link #open} and {@link
 * #readAhead}.
 */
final class FetchConfig {
  static final String MAX_BYTES = "fetch.cache.max.bytes";
  static final String DIR = "fetch.cache.dir";
  static final String READ_AHEAD_THREADS = "fetch.read.ahead.threads";

  private FetchConfig() {}

  static ConfigDef define(ConfigDef def) {
    return def.define(
            MAX_BYTES,
            Type.LONG,
            0L,
            ConfigDef.Range.atLeast(0L),
            Importance.MEDIUM,
            "Bytes of local disk for whole re-encoded segments: a segment a consumer fetched from its first "
                + "batch to its last is kept in "
                + DIR
                + ", and consumers replaying it later read the file instead of the table (least recently "
                + "used segments leave first). A segment larger than this is never kept. 0: no cache, every "
                + "fetch re-encodes.")
        .define(
            DIR,
            Type.STRING,
            "",
            ConfigDef.LambdaValidator.with(
                (name, value) -> {
                  try {
                    Path.of(((String) value).trim());
                  } catch (InvalidPathException e) {
                    throw new ConfigException(name, value, "not a path: " + e.getReason());
                  }
                },
                () -> "a folder path, or empty"),
            Importance.MEDIUM,
            "Folder of the re-encoded segment cache, required when "
                + MAX_BYTES
                + " is above 0; each broker uses a "
                + "subfolder broker-<id>. Use a local disk (not tmpfs). Cache files there are removed at start "
                + "and at close; they hold nothing the table does not.")
        .define(
            READ_AHEAD_THREADS,
            Type.INT,
            -1,
            ConfigDef.Range.atLeast(-1),
            Importance.LOW,
            "Threads (floe-fetch-rows-<n>) that decode a fetch's next rows from Parquet while the fetch's "
                + "own thread re-encodes the batches before them, shared by the broker's fetches and ended "
                + "after a minute without work. A fetch reads ahead by at most 512 records (256 KiB of the "
                + "log); when every thread is busy it reads its rows itself. -1: one per processor; 0: off, "
                + "each fetch decodes its rows on its own thread.");
  }

  /** The read-ahead threads the settings describe. */
  static ReadAheadPool readAhead(AbstractConfig config) {
    return ReadAheadPool.of(config.getInt(READ_AHEAD_THREADS));
  }

  /**
   * The cache the settings describe: off, or in {@code <dir>/broker-<id>}.
   *
   * @throws ConfigException naming {@link #DIR} when it is unset or cannot be used
   */
  static ReencodedSegmentCache open(AbstractConfig config, int brokerId) {
    long maxBytes = config.getLong(MAX_BYTES);
    if (maxBytes == 0) {
      return ReencodedSegmentCache.off();
    }
    String dir = config.getString(DIR).trim();
    if (dir.isEmpty()) {
      throw new ConfigException(DIR, "", "must be set when " + MAX_BYTES + " is above 0");
    }
    try {
      Path base = Path.of(dir);
      return ReencodedSegmentCache.in(
          brokerId >= 0 ? base.resolve("broker-" + brokerId) : base, maxBytes);
    } catch (InvalidPathException | UncheckedIOException e) {
      throw new ConfigException(DIR, dir, "cannot hold the segment cache: " + e.getMessage());
    }
  }
}
