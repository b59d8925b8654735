package io.floe.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One-shot LZ4 frames read back by Kafka's own LZ4 reader, with the frame header the streaming
 * writer of V1 and V2 batches writes, for every block layout: one short block, a block of exactly
 * 64 KiB, a block and one byte more, and blocks that do not compress (stored as they are).
 */
class Lz4FramesTest {
  private static final int BLOCK = 64 * 1024;

  @ParameterizedTest
  @ValueSource(ints = {1, 100, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 17})
  void kafkaReadsFramesOfCompressibleRecords(int length) throws Exception {
    assertKafkaReadsBack(compressible(length));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 100, BLOCK, BLOCK + 1, 2 * BLOCK + 5})
  void kafkaReadsFramesOfRecordsThatDoNotCompress(int length) throws Exception {
    byte[] random = new byte[length];
    new Random(length).nextBytes(random);
    assertKafkaReadsBack(random);
  }

  @ParameterizedTest
  @ValueSource(ints = {100, 2 * BLOCK + 5})
  void theFrameHeaderIsTheStreamingWritersOne(int length) throws Exception {
    byte[] src = compressible(length);
    ByteArrayOutputStream streamed = new ByteArrayOutputStream();
    try (OutputStream out = Compression.LZ4.compress(streamed)) {
      out.write(src);
    }
    byte[] frame = frame(src);
    assertThat(Arrays.copyOf(frame, 7)).isEqualTo(Arrays.copyOf(streamed.toByteArray(), 7));
    assertThat(frame).endsWith(0, 0, 0, 0);
  }

  private static void assertKafkaReadsBack(byte[] src) throws Exception {
    byte[] frame = frame(src);
    assertThat((long) frame.length).isLessThanOrEqualTo(Lz4Frames.maxFrameLength(src.length));
    try (InputStream in =
        org.apache.kafka.common.compress.Compression.lz4()
            .build()
            .wrapForInput(
                ByteBuffer.wrap(frame), RecordBatch.MAGIC_VALUE_V2, BufferSupplier.create())) {
      assertThat(in.readAllBytes()).isEqualTo(src);
    }
  }

  private static byte[] frame(byte[] src) {
    byte[] dst = new byte[(int) Lz4Frames.maxFrameLength(src.length) + 10];
    int n = Lz4Frames.compress(src, dst, 10);
    return Arrays.copyOfRange(dst, 10, 10 + n);
  }

  private static byte[] compressible(int length) {
    byte[] b = new byte[length];
    Random random = new Random(length);
    for (int i = 0; i < length; i++) {
      b[i] = (byte) ('a' + random.nextInt(4));
    }
    return b;
  }
}
