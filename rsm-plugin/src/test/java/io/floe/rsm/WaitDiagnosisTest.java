package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a worker waits on, from stacks as the JVM reports them (innermost frame first). */
class WaitDiagnosisTest {

  @Test
  void namesTheServiceAWorkerWaitsOn() {
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "sun.nio.ch.NioSocketImpl.read",
                    "org.apache.hc.core5.http.impl.io.SessionInputBufferImpl.fillBuffer",
                    "software.amazon.awssdk.http.apache5.Apache5HttpClient$1.call",
                    "org.apache.iceberg.aws.s3.S3InputStream.openStream")))
        .isEqualTo("an object store (S3) request");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "org.sqlite.core.NativeDB.step",
                    "org.apache.iceberg.jdbc.JdbcUtil.loadTable",
                    "io.floe.commit.GroupCommit.commit")))
        .isEqualTo("the catalog's database (JDBC)");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "sun.nio.ch.NioSocketImpl.read",
                    "org.apache.hc.client5.http.impl.classic.InternalHttpClient.doExecute",
                    "org.apache.iceberg.rest.HTTPClient.execute")))
        .isEqualTo("the REST catalog");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "java.lang.Thread.sleep",
                    "org.apache.iceberg.util.Tasks$Builder.runTaskWithRetry",
                    "org.apache.iceberg.BaseMetastoreTableOperations.refreshFromMetadataLocation",
                    "org.apache.iceberg.jdbc.JdbcTableOperations.doRefresh")))
        .startsWith("a backoff between retries, as Iceberg retries reading the table's metadata");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "java.lang.Object.wait",
                    "io.floe.commit.GroupCommit$Waiter.awaitTurnOrResult")))
        .isEqualTo("a commit of the same table that another copy leads");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "java.util.concurrent.ConcurrentHashMap.compute",
                    "com.github.benmanes.caffeine.cache.BoundedLocalCache.doComputeIfAbsent",
                    "io.floe.rsm.StorageBackend.open")))
        .isEqualTo("another call loading the same segment or table");
    assertThat(
            WaitDiagnosis.of(
                stack(
                    "java.lang.Object.wait",
                    "org.apache.iceberg.ClientPoolImpl.get",
                    "org.apache.iceberg.ClientPoolImpl.run",
                    "org.apache.iceberg.jdbc.JdbcUtil.loadTable")))
        .startsWith("a free connection of the catalog's pool");
    assertThat(
            WaitDiagnosis.of(
                stack("java.util.zip.Deflater.deflateBytes", "io.floe.copy.SegmentWriter.write")))
        .isEqualTo("its own work (in SegmentWriter.write)");
  }

  private static StackTraceElement[] stack(String... frames) {
    StackTraceElement[] out = new StackTraceElement[frames.length];
    for (int i = 0; i < frames.length; i++) {
      int dot = frames[i].lastIndexOf('.');
      out[i] =
          new StackTraceElement(
              frames[i].substring(0, dot), frames[i].substring(dot + 1), null, -1);
    }
    return out;
  }
}
