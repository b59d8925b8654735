package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Floe's Parquet writers are built without Hadoop's default resources, and write the same table
 * rows (and fetch the same bytes) as ever.
 */
class WithoutHadoopDefaultsTest {
  private static final String TOPIC = "events";
  private static final String TOPIC_ID = "HHHHHHHHHHHHHHHHHHHHHH";

  @TempDir Path dir;

  @Test
  void aConfigurationBuiltInsideSkipsTheDefaultResourcesAndOnlyThere() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    String inside = WithoutHadoopDefaults.run(() -> new Configuration().get("fs.defaultFS"));
    assertThat(inside).isNull();
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    assertThat(new Configuration().get("fs.defaultFS")).isEqualTo("file:///");
  }

  @Test
  void everyDefaultAndSiteResourceOfHadoopIsHiddenInsideOnly() {
    // mapred-default.xml and yarn-default.xml become default resources of every configuration once
    // Hadoop's JobConf is loaded (Parquet's codec factory loads it); hdfs-site.xml is one a
    // cluster's classpath may carry.
    for (String name :
        List.of("core-default.xml", "core-site.xml", "mapred-default.xml", "yarn-default.xml")) {
      assertThat(resource(name)).as(name).isNull();
    }
    assertThat(resource("hdfs-site.xml")).isNull();
    assertThat(getClass().getClassLoader().getResource("mapred-default.xml")).isNotNull();
    assertThat(getClass().getClassLoader().getResource("yarn-default.xml")).isNotNull();
    // Anything else is found as ever.
    assertThat(resource("org/apache/hadoop/conf/Configuration.class")).isNotNull();
  }

  /**
   * {@code name} as the thread's class loader finds it inside {@link WithoutHadoopDefaults#run}.
   */
  private static java.net.URL resource(String name) {
    return WithoutHadoopDefaults.run(
        () -> Thread.currentThread().getContextClassLoader().getResource(name));
  }

  @Test
  void theThreadsClassLoaderComesBackWhenTheBodyFails() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    assertThatThrownBy(
            () ->
                WithoutHadoopDefaults.run(
                    () -> {
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
  }

  @Test
  void classesStillLoadThroughTheHidingLoader() throws Exception {
    Class<?> found =
        WithoutHadoopDefaults.run(
            () -> {
              try {
                return new Configuration().getClassByName(SegmentSummary.class.getName());
              } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(found).isSameAs(SegmentSummary.class);
  }

  @Test
  void aCopyWritesItsParquetFilesWithoutThemAndServesTheSegmentExactly() throws Exception {
    Path log =
        SegmentGenerator.seeded(21)
            .batch(Compression.NONE, TimestampType.CREATE_TIME, 40, 200)
            .batch(Compression.ZSTD, TimestampType.CREATE_TIME, 40, 200)
            .writeTo(dir.resolve("0.log"));
    // On S3 (here S3Proxy) every Parquet file gets a new Hadoop configuration; a local warehouse's
    // files copy the file system's, loaded once.
    try (TableFixture fx = new TableFixture(dir, Storage.S3)) {
      long skippedBefore = WithoutHadoopDefaults.skippedLookups();
      SegmentKey key = new SegmentKey(TOPIC, TOPIC_ID, 0, 0, "segment-0");
      fx.segments.copy(key, SegmentFiles.of(log, 0));
      // each Parquet file's configuration asked for core-default.xml and core-site.xml, and was
      // told there are none
      assertThat(WithoutHadoopDefaults.skippedLookups() - skippedBefore).isGreaterThanOrEqualTo(2);
      assertThat(TableFixture.rows(fx.table(TOPIC, TOPIC_ID))).hasSize(80);
      fx.assertServesExactly(key, log);
    }
  }
}
