package io.floe.typed.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.typed.InvalidSchemaException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class AvroFormatTest {
  private final AvroFormat format = new AvroFormat();

  @Test
  void mapsEveryTypeWithFieldIdsDepthFirst() {
    Types.StructType type = AvroFixtures.everything().icebergType().asStructType();

    assertThat(type.fields()).allMatch(Types.NestedField::isOptional);
    assertThat(type.field("nothing")).isNull();
    assertThat(type.field("b").fieldId()).isEqualTo(1);
    assertThat(type.field("e").type()).isEqualTo(Types.StringType.get());
    assertThat(type.field("fx").type()).isEqualTo(Types.FixedType.ofLength(4));
    assertThat(type.field("by").type()).isEqualTo(Types.BinaryType.get());
    assertThat(type.field("opt").type()).isEqualTo(Types.StringType.get());
    assertThat(type.field("optLast").type()).isEqualTo(Types.LongType.get());
    Types.StructType choice = type.field("choice").type().asStructType();
    assertThat(choice.fields())
        .extracting(Types.NestedField::name)
        .containsExactly("int", "string", "Point");
    // choice is field 12; its branches 13-15; Point's x and y 16-17, then arr is 18
    assertThat(type.field("choice").fieldId()).isEqualTo(12);
    assertThat(choice.field("Point").fieldId()).isEqualTo(15);
    assertThat(choice.field("Point").type().asStructType().field("y").fieldId()).isEqualTo(17);
    assertThat(type.field("arr").fieldId()).isEqualTo(18);
    assertThat(type.field("arr").type().asListType().elementId()).isEqualTo(19);
    Types.MapType map = type.field("m").type().asMapType();
    assertThat(map.keyId()).isEqualTo(21);
    assertThat(map.valueType()).isEqualTo(Types.DoubleType.get());
    assertThat(type.field("decB").type()).isEqualTo(Types.DecimalType.of(10, 2));
    assertThat(type.field("decF").type()).isEqualTo(Types.DecimalType.of(18, 3));
    assertThat(type.field("bigDec").type()).isEqualTo(Types.BinaryType.get());
    assertThat(type.field("date").type()).isEqualTo(Types.DateType.get());
    assertThat(type.field("tms").type()).isEqualTo(Types.TimeType.get());
    assertThat(type.field("tus").type()).isEqualTo(Types.TimeType.get());
    for (String zoned : List.of("tsms", "tsus", "tsns")) {
      assertThat(type.field(zoned).type()).isEqualTo(Types.TimestampType.withZone());
    }
    for (String local : List.of("ltsms", "ltsus", "ltsns")) {
      assertThat(type.field(local).type()).isEqualTo(Types.TimestampType.withoutZone());
    }
    assertThat(type.field("id").type()).isEqualTo(Types.StringType.get());
    Type listOfMaps = type.field("listOfMaps").type();
    assertThat(
            listOfMaps.asListType().elementType().asMapType().valueType().asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("x", "y");
  }

  @Test
  void recursiveReferenceIsBinary() {
    Types.StructType type =
        AvroFixtures.writerSchema(AvroFixtures.LINKED).icebergType().asStructType();

    assertThat(type.fields())
        .extracting(f -> f.type().typeId())
        .containsExactly(Type.TypeID.INTEGER, Type.TypeID.STRING, Type.TypeID.BINARY);
  }

  @Test
  void unionOfThreeTypesIsAStructOfBranches() {
    Type type =
        AvroFixtures.writerSchema(
                "[\"null\",\"long\",{\"type\":\"array\",\"items\":\"string\"},"
                    + AvroFixtures.POINT
                    + "]")
            .icebergType();

    assertThat(type.asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("long", "array", "Point");
  }

  @Test
  void referencesAreParsedFirstInAnyOrder() throws Exception {
    String line =
        "{\"type\":\"record\",\"name\":\"Line\",\"namespace\":\"io.floe.test\","
            + "\"fields\":[{\"name\":\"from\",\"type\":\"Point\"},{\"name\":\"to\",\"type\":\"Point\"}]}";
    String text =
        "{\"type\":\"record\",\"name\":\"Shape\",\"fields\":["
            + "{\"name\":\"edge\",\"type\":\"io.floe.test.Line\"}]}";

    Type type =
        format
            .writerSchema(
                text,
                Map.of("io.floe.test.Line", line, "io.floe.test.Point", AvroFixtures.POINT),
                List.of())
            .icebergType();

    assertThat(type.asStructType().field("edge").type().asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("from", "to");
  }

  @Test
  void invalidSchemasAreRefused() {
    assertThatThrownBy(() -> format.writerSchema("{\"type\":\"recrod\"}", Map.of(), List.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("invalid Avro schema");
    assertThatThrownBy(() -> format.writerSchema("{not json", Map.of(), List.of()))
        .isInstanceOf(InvalidSchemaException.class);
    assertThatThrownBy(
            () ->
                format.writerSchema(
                    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"p\",\"type\":\"Point\"}]}",
                    Map.of(),
                    List.of()))
        .isInstanceOf(InvalidSchemaException.class);
    assertThatThrownBy(() -> format.writerSchema("\"string\"", Map.of(), List.of(0)))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("message indexes");
    assertThatThrownBy(() -> format.writerSchema("\"null\"", Map.of(), List.of()))
        .isInstanceOf(InvalidSchemaException.class);
    assertThatThrownBy(() -> format.writerSchema("\"int\"", Map.of("x", "{bad"), List.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("reference x");
  }

  @Test
  void defaultsThatDoNotMatchTheirTypeAreAccepted() throws Exception {
    String text =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
            + "{\"name\":\"n\",\"type\":\"int\",\"default\":\"zero\"}]}";

    assertThat(
            format
                .writerSchema(text, Map.of(), List.of())
                .icebergType()
                .asStructType()
                .field("n")
                .type())
        .isEqualTo(Types.IntegerType.get());
  }

  @Test
  void schemasWithNothingToStoreAreRefused() {
    assertThatThrownBy(
            () ->
                format.writerSchema(
                    "{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}", Map.of(), List.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("no field");
    assertThatThrownBy(
            () ->
                format.writerSchema("{\"type\":\"array\",\"items\":\"null\"}", Map.of(), List.of()))
        .isInstanceOf(InvalidSchemaException.class)
        .hasMessageContaining("null");
  }

  @Test
  void branchesOfNamedTypesThatShareASimpleNameUseTheirFullNames() {
    String a = AvroFixtures.POINT;
    String b = a.replace("io.floe.test", "other.ns");

    Type type = AvroFixtures.writerSchema("[\"string\"," + a + "," + b + "]").icebergType();

    assertThat(type.asStructType().fields())
        .extracting(Types.NestedField::name)
        .containsExactly("string", "io_floe_test_Point", "other_ns_Point");
  }
}
