package io.floe.headview;

import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3Proxy on 127.0.0.1 of its own (not the JVM-wide {@code LocalS3}) that a test can stop, so
 * that the object store is unreachable (connection refused), and start again on the same port with
 * the same objects: the blob store lives in this JVM, apart from the HTTP server.
 */
final class StoppableS3 implements AutoCloseable {
  static final String ACCESS_KEY = "floe-stop-access";
  static final String SECRET_KEY = "floe-stop-secret-do-not-log";

  private final BlobStore blobs;
  private S3Proxy proxy;
  private int port;

  StoppableS3() throws Exception {
    Properties props = new Properties();
    props.setProperty("jclouds.identity", ACCESS_KEY);
    props.setProperty("jclouds.credential", SECRET_KEY);
    this.blobs = BlobStores.create("transient", props);
    start();
  }

  /** Starts serving, on the port of the first start. */
  void start() throws Exception {
    proxy =
        S3Proxy.builder()
            .blobStore(blobs)
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .ignoreUnknownHeaders(true)
            .stopTimeout(0)
            .build();
    proxy.start();
    S3Proxy started = proxy;
    await().atMost(Duration.ofSeconds(30)).until(() -> "STARTED".equals(started.getState()));
    port = proxy.getPort();
  }

  /** Stops serving: connections to the port are refused until {@link #start()}. */
  void stop() throws Exception {
    proxy.stop();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  S3Client client() {
    return S3Client.builder()
        .endpointOverride(endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .httpClient(UrlConnectionHttpClient.create())
        .build();
  }

  void createBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /** The keys under {@code prefix}, listed while the server runs. */
  List<String> keys(String bucket, String prefix) {
    try (S3Client s3 = client()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
          .map(S3Object::key)
          .toList();
    }
  }

  /** Iceberg S3FileIO properties for this server. */
  Map<String, String> fileIoProperties() {
    Map<String, String> props = new HashMap<>();
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("s3.endpoint", endpoint().toString());
    props.put("s3.path-style-access", "true");
    props.put("s3.access-key-id", ACCESS_KEY);
    props.put("s3.secret-access-key", SECRET_KEY);
    props.put("client.region", "us-east-1");
    return props;
  }

  @Override
  public void close() throws Exception {
    if (!"STOPPED".equals(proxy.getState())) {
      proxy.stop();
    }
  }
}
