package io.floe.testing;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.gaul.s3proxy.junit.S3ProxyJunitCore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * A real S3-protocol server (S3Proxy, in memory) on 127.0.0.1, one per test JVM, started on first
 * use.
 */
public final class LocalS3 {
  public static final String ACCESS_KEY = "floe-test-access";
  public static final String SECRET_KEY = "floe-test-secret-do-not-log";

  private static LocalS3 instance;

  private final S3ProxyJunitCore proxy;

  private LocalS3() throws Exception {
    // Benchmarks set floe.test.s3.basedir to keep blobs on disk instead of in this JVM's heap.
    String basedir = System.getProperty("floe.test.s3.basedir");
    S3ProxyJunitCore.Builder builder =
        new S3ProxyJunitCore.Builder().withCredentials(ACCESS_KEY, SECRET_KEY);
    if (basedir == null) {
      builder.withBlobStoreProvider("transient");
    } else {
      System.setProperty("jclouds.filesystem.basedir", basedir);
      builder.withBlobStoreProvider("filesystem");
    }
    proxy = builder.build();
    proxy.beforeEach();
    Runtime.getRuntime().addShutdownHook(new Thread(proxy::afterEach));
  }

  public static synchronized LocalS3 get() {
    if (instance == null) {
      try {
        instance = new LocalS3();
      } catch (Exception e) {
        throw new IllegalStateException("Could not start S3Proxy", e);
      }
    }
    return instance;
  }

  public URI endpoint() {
    URI uri = proxy.getUri();
    return URI.create("http://127.0.0.1:" + uri.getPort());
  }

  public S3Client client() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  public void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /** Iceberg S3FileIO properties for this server. */
  public Map<String, String> fileIoProperties() {
    Map<String, String> props = new HashMap<>();
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("s3.endpoint", endpoint().toString());
    props.put("s3.path-style-access", "true");
    props.put("s3.access-key-id", ACCESS_KEY);
    props.put("s3.secret-access-key", SECRET_KEY);
    props.put("client.region", "us-east-1");
    return props;
  }
}
