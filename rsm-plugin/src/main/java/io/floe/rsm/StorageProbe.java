package io.floe.rsm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * The startup probe: writes one small object under the warehouse and deletes it, through the FileIO
 * Iceberg builds from the catalog properties, so that a missing bucket or wrong credentials fail
 * broker start naming the key instead of failing every copy later. Only definitive answers fail
 * (the store says the bucket does not exist, or refuses the credentials); a store that cannot be
 * reached only gets a warning, since storage may be briefly down while a broker starts and copies
 * are retried anyway.
 */
final class StorageProbe {
  private static final Logger LOG = LoggerFactory.getLogger(StorageProbe.class);
  static final String PROBE_FOLDER = ".floe-probe";
  private static final long TIMEOUT_MS = 30_000;
  private static final String DEFAULT_IO = "org.apache.iceberg.io.ResolvingFileIO";
  private static final Pattern URI_WITH_SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");
  private static final Set<String> BUCKET_CODES = Set.of("NoSuchBucket", "InvalidBucketName");
  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "AccessDenied",
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "InvalidToken",
          "ExpiredToken",
          "InvalidSecurity",
          "AllAccessDisabled",
          "AccountProblem");
  private static final List<String> CREDENTIAL_KEYS =
      List.of(
          "iceberg.s3.access-key-id", "iceberg.s3.secret-access-key", "iceberg.s3.session-token");

  private final FloeRsmConfig config;
  private final Redactor redactor;
  private final Object hadoopConf;

  StorageProbe(FloeRsmConfig config, Redactor redactor, Object hadoopConf) {
    this.config = config;
    this.redactor = redactor;
    this.hadoopConf = hadoopConf;
  }

  /**
   * Runs the probe when it applies; throws a ConfigException on a definitive failure, else returns.
   */
  void run() {
    String warehouse = config.getString(FloeRsmConfig.ICEBERG_WAREHOUSE);
    String skipped = skipReason(warehouse);
    if (skipped != null) {
      LOG.info("Floe storage probe skipped: {}", skipped);
      return;
    }
    String location = probeLocation(warehouse);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    long start = System.nanoTime();
    CompletableFuture<Void> probe = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              Thread.currentThread().setContextClassLoader(loader);
              try {
                writeAndDelete(location);
                probe.complete(null);
              } catch (Throwable t) {
                probe.completeExceptionally(t);
              }
            },
            "floe-storage-probe");
    thread.setDaemon(true);
    thread.start();
    try {
      probe.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      LOG.info(
          "Floe storage probe wrote and deleted {} in {} ms",
          location,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    } catch (TimeoutException e) {
      LOG.warn(
          "Floe storage probe of {} did not finish within {} s; starting anyway (copies are retried)",
          redactor.redact(location),
          TIMEOUT_MS / 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigException("Interrupted while probing the warehouse storage");
    } catch (ExecutionException e) {
      Throwable failure = e.getCause();
      ConfigException definitive = definitive(warehouse, location, failure);
      if (definitive != null) {
        definitive.initCause(redactor.sanitize(failure));
        throw definitive;
      }
      LOG.warn(
          "Floe storage probe could not write {} ({}); starting anyway, copies are retried until storage "
              + "answers. Set rsm.config.{}=false to skip this probe.",
          redactor.redact(location),
          redactor.describe(failure),
          FloeRsmConfig.STORAGE_PROBE_ENABLE);
    }
  }

  private String skipReason(String warehouse) {
    if (!config.getBoolean(FloeRsmConfig.STORAGE_PROBE_ENABLE)) {
      return FloeRsmConfig.STORAGE_PROBE_ENABLE + "=false";
    }
    if (warehouse == null) {
      return "no " + FloeRsmConfig.ICEBERG_WAREHOUSE;
    }
    if ("rest".equalsIgnoreCase(config.getString(FloeRsmConfig.ICEBERG_TYPE))) {
      return "a REST catalog's warehouse names a warehouse of the server, not a location";
    }
    if (!URI_WITH_SCHEME.matcher(warehouse).matches()) {
      return FloeRsmConfig.ICEBERG_WAREHOUSE + " is not a URI with a scheme";
    }
    return null;
  }

  private String probeLocation(String warehouse) {
    String base = warehouse.endsWith("/") ? warehouse : warehouse + "/";
    return base + PROBE_FOLDER + "/broker-" + config.brokerId() + "-" + UUID.randomUUID();
  }

  private void writeAndDelete(String location) throws IOException {
    Map<String, String> props = new HashMap<>(config.catalogProperties());
    // A probe answers quickly: Iceberg's S3 default (5 retries, 2 to 20 s apart) would hold broker
    // start ~1 min.
    props.put("s3.retry.num-retries", "1");
    props.put("s3.retry.min-wait-ms", "200");
    props.put("s3.retry.max-wait-ms", "1000");
    String impl = props.getOrDefault("io-impl", DEFAULT_IO);
    try (FileIO io = CatalogUtil.loadFileIO(impl, props, hadoopConf)) {
      try (OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
        out.write(
            ("Floe storage probe of broker " + config.brokerId() + "\n")
                .getBytes(StandardCharsets.UTF_8));
      }
      try {
        io.deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn(
            "Floe storage probe wrote {} but could not delete it ({}): deleting segments will fail the same "
                + "way",
            redactor.redact(location),
            redactor.describe(e));
      }
    }
  }

  /** A ConfigException for answers that will not change by waiting, else null. */
  private ConfigException definitive(String rawWarehouse, String rawLocation, Throwable failure) {
    String warehouse = redactor.redact(rawWarehouse);
    String location = redactor.redact(rawLocation);
    SdkServiceException service = find(failure, SdkServiceException.class);
    if (service != null) {
      return refusedByService(service, warehouse, location);
    }
    AccessDeniedException denied = find(failure, AccessDeniedException.class);
    if (denied != null) {
      return new ConfigException(
          FloeRsmConfig.ICEBERG_WAREHOUSE,
          warehouse,
          "the storage probe may not write "
              + location
              + " (access denied: "
              + redactor.redact(denied.getMessage())
              + ")"
              + hint());
    }
    return null;
  }

  /** A ConfigException for an object-store answer that names a configuration problem, else null. */
  private ConfigException refusedByService(
      SdkServiceException service, String warehouse, String location) {
    int status = service.statusCode();
    String code =
        service instanceof AwsServiceException aws && aws.awsErrorDetails() != null
            ? aws.awsErrorDetails().errorCode()
            : null;
    String answer =
        "the object store answered "
            + status
            + (code == null ? "" : " " + code)
            + ": "
            + redactor.redact(firstLine(service));
    String failed = "the storage probe could not write " + location + ": " + answer;
    if (BUCKET_CODES.contains(code) || (code == null && status == 404)) {
      return new ConfigException(
          FloeRsmConfig.ICEBERG_WAREHOUSE,
          warehouse,
          failed + ". Create the bucket or fix " + FloeRsmConfig.ICEBERG_WAREHOUSE + hint());
    }
    if (CREDENTIAL_CODES.contains(code) || status == 401 || status == 403) {
      return new ConfigException(
          "Storage credentials refused: " + failed + ". Check " + credentialKeys() + hint());
    }
    if (status >= 400 && status < 500 && status != 408 && status != 429) {
      return new ConfigException(
          FloeRsmConfig.ICEBERG_WAREHOUSE,
          warehouse,
          failed
              + ". Check "
              + FloeRsmConfig.ICEBERG_WAREHOUSE
              + ", iceberg.s3.endpoint and iceberg.client.region"
              + hint());
    }
    return null;
  }

  private String credentialKeys() {
    List<String> set = new ArrayList<>();
    for (String key : CREDENTIAL_KEYS) {
      if (config.originals().containsKey(key)) {
        set.add(key);
      }
    }
    return set.isEmpty()
        ? "the credentials of the default AWS credential chain (or set iceberg.s3.access-key-id and "
            + "iceberg.s3.secret-access-key)"
        : String.join(" and ", set);
  }

  private static String hint() {
    return " (set " + FloeRsmConfig.STORAGE_PROBE_ENABLE + "=false to skip this check)";
  }

  private static String firstLine(Throwable t) {
    String m = t.getMessage();
    if (m == null) {
      return t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }
}
