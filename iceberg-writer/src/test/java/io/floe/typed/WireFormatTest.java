package io.floe.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WireFormatTest {

  @Test
  void readsTheSchemaIdAndWhereThePayloadStarts() throws Exception {
    byte[] bytes = {0, 0, 1, 0, 2, 42, 43};
    WireFormat.Prefix prefix = WireFormat.read(bytes, false);
    assertThat(prefix.schemaId()).isEqualTo(65538);
    assertThat(prefix.messageIndexes()).isEmpty();
    assertThat(prefix.payloadStart()).isEqualTo(5);
    assertThat(WireFormat.prefix(65538, List.of(), false)).containsExactly(0, 0, 1, 0, 2);
  }

  @Test
  void readsProtobufMessageIndexesInBothFormsOfTheFirstMessage() throws Exception {
    byte[] confluent = {0, 0, 0, 0, 7, 0, 9};
    byte[] counted = {0, 0, 0, 0, 7, 2, 0, 9};
    byte[] nested = {0, 0, 0, 0, 7, 4, 2, 6, 9};
    assertThat(WireFormat.read(confluent, true)).isEqualTo(new WireFormat.Prefix(7, List.of(), 6));
    assertThat(WireFormat.read(counted, true)).isEqualTo(new WireFormat.Prefix(7, List.of(0), 7));
    assertThat(WireFormat.read(nested, true)).isEqualTo(new WireFormat.Prefix(7, List.of(1, 3), 8));
  }

  @Test
  void writesEachFormOfTheFirstMessageBackAsItCame() throws Exception {
    assertThat(WireFormat.prefix(7, List.of(), true)).containsExactly(0, 0, 0, 0, 7, 0);
    assertThat(WireFormat.prefix(7, List.of(0), true)).containsExactly(0, 0, 0, 0, 7, 2, 0);
    assertThat(WireFormat.prefix(7, List.of(1, 3), true)).containsExactly(0, 0, 0, 0, 7, 4, 2, 6);
    for (byte[] prefix : List.of(new byte[] {0, 0, 0, 0, 7, 0}, new byte[] {0, 0, 0, 0, 7, 2, 0})) {
      WireFormat.Prefix read = WireFormat.read(prefix, true);
      assertThat(WireFormat.prefix(read.schemaId(), read.messageIndexes(), true)).isEqualTo(prefix);
    }
  }

  @Test
  void refusesBytesThatAreNotTheWireFormat() {
    assertThatThrownBy(() -> WireFormat.read(new byte[] {0, 0, 1}, false))
        .isInstanceOf(UndecodablePayloadException.class)
        .hasMessageContaining("fewer than 5");
    assertThatThrownBy(() -> WireFormat.read("{\"a\":1}".getBytes(), false))
        .hasMessageContaining("first byte 123, not 0");
    assertThatThrownBy(() -> WireFormat.read(new byte[] {0, 0, 0, 0, 1, (byte) 0x80}, true))
        .hasMessageContaining("truncated Protobuf message indexes");
    assertThatThrownBy(() -> WireFormat.read(new byte[] {0, 0, 0, 0, 1, 1}, true))
        .hasMessageContaining("invalid Protobuf message index count -1");
  }
}
