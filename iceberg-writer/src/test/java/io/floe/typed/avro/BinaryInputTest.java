package io.floe.typed.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.typed.UndecodablePayloadException;
import io.floe.typed.avro.AvroFixtures.Bytes;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BinaryInputTest {

  @Test
  void readsVarintsOfEveryLengthAndRange() throws Exception {
    for (long value : new long[] {0, -1, 1, 63, -64, 64, Long.MAX_VALUE, Long.MIN_VALUE}) {
      BinaryInput in = input(new Bytes().varint(value).toByteArray());
      assertThat(in.readLong()).isEqualTo(value);
      in.expectEnd();
    }
    assertThat(input(new Bytes().varint(Integer.MIN_VALUE).toByteArray()).readInt())
        .isEqualTo(Integer.MIN_VALUE);
    assertThat(
            input(new Bytes().raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00).toByteArray())
                .readInt())
        .isZero();
  }

  @Test
  void refusesAnIntBeyondThirtyTwoBits() {
    BinaryInput in = input(new Bytes().raw(0x80, 0x80, 0x80, 0x80, 0x10).toByteArray());

    assertThatThrownBy(in::readInt)
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("int varint out of range at offset 0");
  }

  @Test
  void readsPastANegativeBlockCountsByteSize() throws Exception {
    BinaryInput in = input(new Bytes().varint(-3).varint(3).raw(1, 2, 3).toByteArray());

    assertThat(in.readBlockCount(1)).isEqualTo(3);
    assertThat(in.position()).isEqualTo(2);
  }

  @Test
  void refusesBlockCountsThePayloadCannotHold() {
    assertThatThrownBy(
            () -> input(new Bytes().varint(Long.MIN_VALUE).toByteArray()).readBlockCount(1))
        .hasMessageContaining("block count out of range");
    assertThatThrownBy(
            () -> input(new Bytes().varint(-1).varint(9).raw(0).toByteArray()).readBlockCount(1))
        .hasMessageContaining("block byte size 9");
  }

  @Test
  void readsFromThePositionOfASlicedBufferWithoutMovingIt() throws Exception {
    ByteBuffer buffer = ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 0, 4, 'h', 'i'});
    buffer.position(5);
    BinaryInput in = new BinaryInput(buffer.asReadOnlyBuffer());

    assertThat(in.readString()).hasToString("hi");
    in.expectEnd();
    assertThat(buffer.position()).isEqualTo(5);
  }

  private static BinaryInput input(byte[] bytes) {
    return new BinaryInput(ByteBuffer.wrap(bytes));
  }
}
