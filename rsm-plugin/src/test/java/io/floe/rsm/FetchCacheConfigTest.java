package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.fetch.ReencodedSegmentCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fetch cache is off unless given bytes, and then needs a folder it can use, per broker. */
class FetchCacheConfigTest {
  @TempDir Path dir;

  private static FloeRsmConfig config(Object maxBytes, Object cacheDir) {
    Map<String, Object> props = new HashMap<>();
    props.put("iceberg.type", "jdbc");
    props.put("iceberg.uri", "jdbc:sqlite::memory:");
    props.put("broker.id", "3");
    if (maxBytes != null) {
      props.put(FetchCacheConfig.MAX_BYTES, maxBytes);
    }
    if (cacheDir != null) {
      props.put(FetchCacheConfig.DIR, cacheDir);
    }
    return new FloeRsmConfig(props);
  }

  @Test
  void offByDefault() {
    FloeRsmConfig config = config(null, null);
    assertThat(FetchCacheConfig.open(config, 3).enabled()).isFalse();
  }

  @Test
  void eachBrokerGetsASubfolder() throws Exception {
    FloeRsmConfig config = config("1048576", dir.toString());
    try (ReencodedSegmentCache cache = FetchCacheConfig.open(config, 3)) {
      assertThat(cache.enabled()).isTrue();
      assertThat(dir.resolve("broker-3")).isDirectory();
    }
  }

  @Test
  void bytesWithoutAFolderFailNamingTheFolderKey() {
    FloeRsmConfig config = config("1048576", " ");
    assertThatThrownBy(() -> FetchCacheConfig.open(config, 3))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchCacheConfig.DIR)
        .hasMessageContaining(FetchCacheConfig.MAX_BYTES);
  }

  @Test
  void aFolderThatCannotBeCreatedFailsNamingTheKey() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
    FloeRsmConfig config = config("1048576", file.toString());
    assertThatThrownBy(() -> FetchCacheConfig.open(config, 3))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchCacheConfig.DIR)
        .hasMessageContaining(file.toString());
  }

  @Test
  void negativeBytesAreRefused() {
    assertThatThrownBy(() -> config("-1", dir.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(FetchCacheConfig.MAX_BYTES);
  }
}
