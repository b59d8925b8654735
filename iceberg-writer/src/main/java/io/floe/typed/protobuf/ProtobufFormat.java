package io.floe.typed.protobuf;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.floe.typed.InvalidSchemaException;
import io.floe.typed.SchemaFormat;
import io.floe.typed.WriterSchema;
import java.util.List;
import java.util.Map;

/**
 * Protobuf writer schemas: {@code .proto} text (with its imports in the references; Google's
 * well-known imports need none) and the message indexes of the wire format, to a struct type.
 *
 * <table>
 *   <caption>Protobuf to Iceberg</caption>
 *   <tr><th>Protobuf</th><th>Iceberg</th><th>Value</th></tr>
 *   <tr><td>message</td><td>struct, fields in declaration order, all optional</td>
 *       <td>Record</td></tr>
 *   <tr><td>int32, sint32, sfixed32</td><td>int</td><td>Integer</td></tr>
 *   <tr><td>uint32, fixed32</td><td>long</td><td>Long (unsigned value)</td></tr>
 *   <tr><td>int64, sint64, sfixed64</td><td>long</td><td>Long</td></tr>
 *   <tr><td>uint64, fixed64</td><td>decimal(20, 0)</td><td>BigDecimal (unsigned value)</td></tr>
 *   <tr><td>float, double, bool, string</td><td>float, double, boolean, string</td>
 *       <td>Float, Double (NaN made canonical), Boolean, String</td></tr>
 *   <tr><td>bytes</td><td>binary</td><td>ByteBuffer</td></tr>
 *   <tr><td>enum</td><td>string</td><td>the value's name; an unknown number of an open enum as
 *       its decimal number</td></tr>
 *   <tr><td>repeated T</td><td>list of T (optional elements)</td><td>List</td></tr>
 *   <tr><td>map&lt;K, V&gt;</td><td>map of K to V (optional values)</td>
 *       <td>Map in payload order (a repeated key keeps its first place, last value)</td></tr>
 *   <tr><td>oneof</td><td>struct with one optional field per member, at the place of its first
 *       member</td><td>Record with at most one field set; null when none is set</td></tr>
 *   <tr><td>proto3 {@code optional}</td><td>the field itself (its synthetic oneof is not a
 *       struct)</td><td></td></tr>
 *   <tr><td>google.protobuf.Timestamp</td><td>timestamptz</td><td>OffsetDateTime in UTC;
 *       nanos below a microsecond are cut, so such a record keeps its bytes</td></tr>
 *   <tr><td>google.protobuf wrappers (Int32Value, StringValue, ...)</td><td>the wrapped scalar's
 *       type</td><td>the scalar; null when the wrapper is absent</td></tr>
 *   <tr><td>other well-known types</td><td>as ordinary messages</td><td></td></tr>
 *   <tr><td>a message inside itself (recursion)</td><td>binary</td><td>the inner message's bytes
 *       as protobuf-java serialises it</td></tr>
 * </table>
 *
 * <p>Field ids are numbered from 1 depth first (a field, then the ids inside its type). A proto3
 * field without presence decodes to its default when absent and is not written when it holds its
 * default; a field with presence (proto2, proto3 {@code optional}, messages, oneof members) is null
 * when absent. Encoding is protobuf-java's serialisation: fields in number order, repeated scalars
 * packed as the descriptor says, minimal varints. Decoding normalises as storage would (unknown
 * fields dropped, last value of a non-repeated field wins, NaN canonical), so such payloads
 * re-encode to other bytes. Proto2 groups and editions are not supported (InvalidSchemaException).
 */
public final class ProtobufFormat implements SchemaFormat {

  private final Cache<List<Object>, FileDescriptor> files =
      Caffeine.newBuilder().maximumSize(1_000).build();

  @Override
  public WriterSchema writerSchema(
      String text, Map<String, String> references, List<Integer> messageIndexes)
      throws InvalidSchemaException {
    List<Object> key = List.of(text, references);
    FileDescriptor file = files.getIfPresent(key);
    if (file == null) {
      file = ProtoFiles.link(text, references);
      files.put(key, file);
    }
    return new ProtobufWriterSchema(message(file, messageIndexes));
  }

  private static Descriptor message(FileDescriptor file, List<Integer> indexes)
      throws InvalidSchemaException {
    List<Integer> path = indexes.isEmpty() ? List.of(0) : indexes;
    List<Descriptor> candidates = file.getMessageTypes();
    Descriptor message = null;
    for (int index : path) {
      if (index < 0 || index >= candidates.size()) {
        throw new InvalidSchemaException(
            "the .proto file has no message at indexes " + indexes + " (" + index + ")");
      }
      message = candidates.get(index);
      candidates = message.getNestedTypes();
    }
    return message;
  }
}
