package io.floe.rsm;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.copy.SegmentFormatException;
import io.floe.tier.SegmentNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.apache.kafka.server.log.remote.storage.RetriableRemoteStorageException;
import org.junit.jupiter.api.Test;

/** Each kind of failure becomes the RemoteStorageException Kafka expects, with no secret in it. */
class ErrorMapperTest {
  private static final String SECRET = "s3cr3t-value";

  private final Uuid segmentId = Uuid.randomUuid();
  private final RemoteLogSegmentMetadata segment =
      new RemoteLogSegmentMetadata(
          new RemoteLogSegmentId(
              new TopicIdPartition(Uuid.randomUuid(), new TopicPartition("payments", 2)),
              segmentId),
          10,
          19,
          0,
          1,
          0,
          100,
          Map.of(0, 10L));
  private final String described = segmentId + " of payments-2 (offsets 10..19)";
  private final ErrorMapper errors = new ErrorMapper(new Redactor(List.of(SECRET)));

  private static RuntimeException storeFailure() {
    return new UncheckedIOException(
        "PUT failed", new IOException("signature of key " + SECRET + " does not match"));
  }

  private static String trace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Test
  void aSegmentFloeCannotRepresentIsRefusedForGood() {
    RemoteStorageException e =
        errors.copyFailed(
            segment, new SegmentFormatException("magic 1 batch at 12 (key " + SECRET + ")"));
    assertThat(e)
        .isExactlyInstanceOf(RemoteStorageException.class)
        .hasMessage(
            "Segment " + described + " cannot be tiered: magic 1 batch at 12 (key [hidden])");
    assertThat(trace(e)).contains(SegmentFormatException.class.getName()).doesNotContain(SECRET);

    assertThat(errors.copyFailed(segment, new IllegalArgumentException("bad offset")))
        .isExactlyInstanceOf(RemoteStorageException.class)
        .hasMessage("Segment " + described + " cannot be tiered: bad offset");
  }

  @Test
  void callsPastTheirBoundAndCancelledCopiesAreRetriableWithoutCause() {
    CallTimeoutException timeout =
        new CallTimeoutException(
            "operation.timeout.ms", 3000, "committing the segment", "an object store (S3) request");
    RemoteStorageException copy = errors.copyFailed(segment, timeout);
    assertThat(copy)
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessage(
            "Copying segment "
                + described
                + " did not finish within operation.timeout.ms=3000 ms while committing the"
                + " segment, waiting on an object store (S3) request; its work was interrupted and"
                + " given up")
        .hasNoCause();
    assertThat(errors.fetchFailed(segment, 7, timeout))
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageStartingWith(
            "Fetching segment " + described + " from position 7 did not finish");
    assertThat(errors.indexFetchFailed(segment, IndexType.OFFSET, timeout))
        .hasMessageStartingWith("Fetching the OFFSET index of segment " + described + " did not");
    assertThat(errors.deleteFailed(segment, timeout))
        .hasMessageStartingWith("Deleting segment " + described + " did not finish");

    RemoteStorageException cancelled =
        errors.copyCancelled(segment, CallCancelledException.interrupted("writing"));
    assertThat(cancelled)
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessage(
            "Copying segment "
                + described
                + " cancelled by the broker (its thread was interrupted) while writing")
        .hasNoCause();
  }

  @Test
  void anyOtherCopyFailureIsRetriable() {
    RemoteStorageException e = errors.copyFailed(segment, storeFailure());
    assertThat(e)
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessage(
            "Copying segment "
                + described
                + " failed: UncheckedIOException: PUT failed"
                + " (caused by IOException: signature of key [hidden] does not match)");
    assertThat(trace(e)).contains("PUT failed").doesNotContain(SECRET);

    RemoteStorageException io = errors.copyFailed(segment, new IOException("disk gone"));
    assertThat(io)
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessage("Copying segment " + described + " failed: IOException: disk gone");
  }

  @Test
  void aSegmentThatIsNotStoredIsNotFound() {
    RemoteStorageException e =
        errors.openFailed(segment, new SegmentNotFoundException("no sidecar at s3://" + SECRET));
    assertThat(e)
        .isExactlyInstanceOf(RemoteResourceNotFoundException.class)
        .hasMessage(
            "Segment " + described + " is not in remote storage: no sidecar at s3://[hidden]");

    assertThat(errors.openFailed(segment, storeFailure()))
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageStartingWith("Opening segment " + described + " failed: UncheckedIOException")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void fetchFailuresAreRetriableUnlessAlreadyMapped() {
    RemoteStorageException notFound = errors.openFailed(segment, new SegmentNotFoundException("x"));
    assertThat(errors.fetchFailed(segment, 42, notFound)).isSameAs(notFound);
    assertThat(errors.indexFetchFailed(segment, IndexType.OFFSET, notFound)).isSameAs(notFound);

    RemoteStorageException fetch = errors.fetchFailed(segment, 42, storeFailure());
    assertThat(fetch)
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageStartingWith(
            "Fetching segment " + described + " from position 42 failed: UncheckedIOException")
        .hasMessageNotContaining(SECRET);
    assertThat(trace(fetch)).doesNotContain(SECRET);

    // On the fetch path a malformed stored segment is retriable too (only copies refuse for good)
    assertThat(errors.fetchFailed(segment, 0, new SegmentFormatException("crc")))
        .isInstanceOf(RetriableRemoteStorageException.class);

    assertThat(errors.indexFetchFailed(segment, IndexType.TIMESTAMP, storeFailure()))
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageStartingWith(
            "Fetching the TIMESTAMP index of segment " + described + " failed: ")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void aMissingIndexIsNotFound() {
    assertThat(errors.noIndex(segment, IndexType.TRANSACTION))
        .isExactlyInstanceOf(RemoteResourceNotFoundException.class)
        .hasMessage("Segment " + described + " has no TRANSACTION index");
  }

  @Test
  void deleteFailuresAreRetriable() {
    assertThat(errors.deleteFailed(segment, storeFailure()))
        .isInstanceOf(RetriableRemoteStorageException.class)
        .hasMessageStartingWith("Deleting segment " + described + " failed: UncheckedIOException")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void beforeKafka43RetriableFailuresArePlainWithTheSameMessage() {
    ErrorMapper old = new ErrorMapper(new Redactor(List.of(SECRET)), null);
    RemoteStorageException e = old.copyFailed(segment, storeFailure());
    assertThat(e)
        .isExactlyInstanceOf(RemoteStorageException.class)
        .hasMessage(errors.copyFailed(segment, storeFailure()).getMessage());
    assertThat(trace(e)).doesNotContain(SECRET);
  }

  @Test
  void theRetriableClassIsFoundAtRunTimeWhereItExists() {
    assertThat(ErrorMapper.retriableConstructor(getClass().getClassLoader()))
        .isNotNull()
        .satisfies(
            c ->
                assertThat(c.getDeclaringClass()).isEqualTo(RetriableRemoteStorageException.class));
    ClassLoader kafka42 =
        new ClassLoader(getClass().getClassLoader()) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(ErrorMapper.RETRIABLE_CLASS)) {
              throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
          }
        };
    assertThat(ErrorMapper.retriableConstructor(kafka42)).isNull();
  }
}
