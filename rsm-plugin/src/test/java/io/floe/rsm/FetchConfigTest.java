package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.fetch.ReadAheadPool;
import io.floe.fetch.ReencodedSegmentCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fetch cache is off unless given bytes, and then needs a folder it can use, per broker;
 * fetches read rows ahead on one thread per processor unless told otherwise.
 */
class FetchConfigTest {
  @TempDir Path dir;

  private static FloeRsmConfig config(Object maxBytes, Object cacheDir) {
    Map<String, Object> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    props.put("iceberg.uri", "jdbc:sqlite::memory:");
    props.put("broker.id", "3");
    if (maxBytes != null) {
      props.put(FetchConfig.MAX_BYTES, maxBytes);
    }
    if (cacheDir != null) {
      props.put(FetchConfig.DIR, cacheDir);
    }
    return new FloeRsmConfig(props);
  }

  @Test
  void offByDefault() {
    FloeRsmConfig config = config(null, null);
    assertThat(FetchConfig.open(config, 3).enabled()).isFalse();
  }

  @Test
  void eachBrokerGetsASubfolder() throws Exception {
    FloeRsmConfig config = config("1048576", dir.toString());
    try (ReencodedSegmentCache cache = FetchConfig.open(config, 3)) {
      assertThat(cache.enabled()).isTrue();
      assertThat(dir.resolve("broker-3")).isDirectory();
    }
  }

  @Test
  void bytesWithoutAFolderFailNamingTheFolderKey() {
    FloeRsmConfig config = config("1048576", " ");
    assertThatThrownBy(() -> FetchConfig.open(config, 3))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchConfig.DIR)
        .hasMessageContaining(FetchConfig.MAX_BYTES);
  }

  @Test
  void aFolderThatCannotBeCreatedFailsNamingTheKey() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
    FloeRsmConfig config = config("1048576", file.toString());
    assertThatThrownBy(() -> FetchConfig.open(config, 3))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchConfig.DIR)
        .hasMessageContaining(file.toString());
  }

  @Test
  void negativeBytesAreRefused() {
    assertThatThrownBy(() -> config("-1", dir.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchConfig.MAX_BYTES);
  }

  @Test
  void rowsAreReadAheadOnAThreadPerProcessorByDefault() {
    try (ReadAheadPool pool = FetchConfig.readAhead(config(null, null))) {
      assertThat(pool.threads()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }
  }

  @Test
  void readAheadThreadsCanBeSetOrTurnedOff() {
    try (ReadAheadPool pool = FetchConfig.readAhead(withReadAhead("3"))) {
      assertThat(pool.threads()).isEqualTo(3);
    }
    assertThat(FetchConfig.readAhead(withReadAhead("0"))).isSameAs(ReadAheadPool.off());
  }

  @Test
  void readAheadThreadsBelowMinusOneAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> withReadAhead("-2"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchConfig.READ_AHEAD_THREADS);
  }

  private static FloeRsmConfig withReadAhead(String threads) {
    Map<String, Object> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    props.put("iceberg.uri", "jdbc:sqlite::memory:");
    props.put(FetchConfig.READ_AHEAD_THREADS, threads);
    return new FloeRsmConfig(props);
  }
}
