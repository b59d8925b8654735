package io.floe.headview;

import io.floe.catalog.HadoopConf;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsStorageCredentials;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FileIO that deletes head files on stop: a copy of the table's S3FileIO (or ResolvingFileIO)
 * that asks the object store once per request and waits a bounded time for it. Left as it is, the
 * AWS SDK behind S3FileIO makes 6 attempts per request ({@code s3.retry.num-retries}=5) with
 * backoff, and waits up to 30 s for a response; deleting head files one by one that way is what
 * made a stop with the object store down take about a second per file, tens of seconds in all.
 * Other FileIOs are used as they are (the stop's deadline still bounds them).
 */
final class StopFileIO {
  private static final Logger LOG = LoggerFactory.getLogger(StopFileIO.class);
  private static final Set<String> COPIED =
      Set.of("org.apache.iceberg.aws.s3.S3FileIO", "org.apache.iceberg.io.ResolvingFileIO");

  private StopFileIO() {}

  /**
   * A copy of {@code io} whose requests are tried once and time out after {@code requestTimeoutMs}
   * (connecting, then waiting for the response); {@code io} itself when it cannot be copied. The
   * caller closes a copy (one that is not {@code io}).
   */
  static FileIO of(FileIO io, long requestTimeoutMs) {
    if (!COPIED.contains(io.getClass().getName())) {
      return io;
    }
    try {
      Map<String, String> props = new HashMap<>(io.properties());
      props.put("s3.retry.num-retries", "0");
      String timeout = Long.toString(requestTimeoutMs);
      for (String key :
          new String[] {
            "http-client.apache.connection-timeout-ms",
            "http-client.apache.socket-timeout-ms",
            "http-client.urlconnection.connection-timeout-ms",
            "http-client.urlconnection.socket-timeout-ms"
          }) {
        props.merge(
            key, timeout, (set, ours) -> Long.parseLong(set) < requestTimeoutMs ? set : ours);
      }
      FileIO copy = CatalogUtil.loadFileIO(io.getClass().getName(), props, HadoopConf.create());
      if (io instanceof SupportsStorageCredentials from
          && copy instanceof SupportsStorageCredentials to) {
        to.setCredentials(from.credentials());
      }
      return copy;
    } catch (RuntimeException e) {
      LOG.debug("Deleting through {} as it is: {}", io.getClass().getName(), e.toString());
      return io;
    }
  }
}
