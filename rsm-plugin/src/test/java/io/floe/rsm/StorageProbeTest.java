package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.floe.testing.LocalS3;
import io.floe.testing.TestCatalogs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The startup probe against a real S3-protocol server (S3Proxy on 127.0.0.1) and a real
 * JdbcCatalog.
 */
class StorageProbeTest {
  private static final String WRONG_SECRET = "not-the-secret-but-still-secret";

  @TempDir Path dir;

  private Map<String, Object> config(Map<String, String> catalog) {
    Map<String, Object> props = new HashMap<>();
    catalog.forEach((k, v) -> props.put("iceberg." + k, v));
    props.put("iceberg.type", "jdbc");
    props.put("broker.id", "4");
    return props;
  }

  private Map<String, String> s3Catalog() {
    return TestCatalogs.properties(dir, TestCatalogs.Storage.S3);
  }

  private static String bucketOf(Map<String, String> catalog) {
    return java.net.URI.create(catalog.get("warehouse")).getHost();
  }

  private static Throwable configure(Map<String, Object> props) {
    try (FloeRemoteStorageManager rsm = new FloeRemoteStorageManager()) {
      return catchThrowable(() -> rsm.configure(props));
    }
  }

  private static String trace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Test
  void aWritableWarehousePassesAndTheProbeObjectIsGone() {
    Map<String, String> catalog = s3Catalog();
    assertThat(configure(config(catalog))).isNull();
    try (S3Client s3 = LocalS3.get().client()) {
      assertThat(s3.listObjectsV2(b -> b.bucket(bucketOf(catalog))).contents()).isEmpty();
    }
  }

  @Test
  void aMissingBucketFailsNamingTheWarehouseKey() {
    Map<String, String> catalog = s3Catalog();
    catalog.put("warehouse", "s3://floe-no-such-bucket/warehouse");
    Throwable thrown = configure(config(catalog));
    assertThat(thrown)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("iceberg.warehouse")
        .hasMessageContaining("NoSuchBucket")
        .hasMessageContaining("storage.probe.enable");
    assertThat(trace(thrown)).doesNotContain(LocalS3.SECRET_KEY);
  }

  @Test
  void wrongCredentialsFailNamingTheCredentialKeysWithoutTheSecret() {
    Map<String, String> catalog = s3Catalog();
    catalog.put("s3.secret-access-key", WRONG_SECRET);
    Throwable thrown = configure(config(catalog));
    assertThat(thrown)
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("iceberg.s3.access-key-id")
        .hasMessageContaining("iceberg.s3.secret-access-key")
        .hasMessageContaining("403");
    assertThat(trace(thrown)).doesNotContain(WRONG_SECRET).doesNotContain(LocalS3.SECRET_KEY);
  }

  @Test
  void anUnreachableStoreOnlyWarns() throws Exception {
    Map<String, String> catalog = s3Catalog();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    catalog.put("s3.endpoint", "http://127.0.0.1:" + port);
    long start = System.nanoTime();
    assertThat(configure(config(catalog))).isNull();
    assertThat((System.nanoTime() - start) / 1_000_000)
        .as("ms to give up on the probe")
        .isLessThan(20_000);
  }

  @Test
  void theProbeCanBeSwitchedOff() {
    Map<String, String> catalog = s3Catalog();
    catalog.put("warehouse", "s3://floe-no-such-bucket/warehouse");
    Map<String, Object> props = config(catalog);
    props.put("storage.probe.enable", "false");
    assertThat(configure(props)).isNull();

    props.put("storage.probe.enable", "sometimes");
    assertThat(configure(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("storage.probe.enable");
  }
}
