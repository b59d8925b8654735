package io.floe.typed;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.commit.SchemaEvolution;
import io.floe.typed.FieldPlacement.Alternate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Placements of writer types in columns, evolved by Iceberg's own union by name ({@link
 * SchemaEvolution} on an in-memory table), so every placement here is one Iceberg accepts.
 */
class FieldPlacementTest {
  private static final Type LONG = Types.LongType.get();
  private static final Type DOUBLE = Types.DoubleType.get();
  private static final Type STRING = Types.StringType.get();
  private static final Type INT = Types.IntegerType.get();

  private InMemoryCatalog catalog;
  private int schemaIds;
  private int tables;

  @BeforeEach
  void setUp() {
    catalog = new InMemoryCatalog();
    catalog.initialize("floe", Map.of());
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  @Test
  void aTypeIcebergCannotChangeGoesToAFieldOfItsOwn() throws Exception {
    Table table = table(struct(optional(1, "id", LONG), optional(2, "amount", DOUBLE)));
    Types.StructType v3 = struct(optional(1, "id", LONG), optional(2, "amount", STRING));

    FieldPlacement before = FieldPlacement.of(column(table), v3);
    assertThat(before.placed())
        .isEqualTo(struct(optional(1, "id", LONG), optional(2, "amount__string", STRING)));
    assertThat(before.alternates()).containsExactly(new Alternate("", "amount", "amount__string"));
    assertThat(TypeCoverage.covers(column(table), before.placed())).isFalse();

    evolve(table, v3);
    Types.StructType column = column(table);
    assertThat(names(column)).containsExactlyInAnyOrder("id", "amount", "amount__string");
    assertThat(column.field("amount").type()).isEqualTo(DOUBLE);
    assertThat(column.field("amount__string").type()).isEqualTo(STRING);

    FieldPlacement after = FieldPlacement.of(column, v3);
    assertThat(after.placed()).isEqualTo(before.placed());
    assertThat(TypeCoverage.covers(column, after.placed())).isTrue();
    Types.StructType view = after.view().asStructType();
    assertThat(view.fields())
        .as("the column's ids in the column's order")
        .extracting(Types.NestedField::fieldId)
        .containsExactlyElementsOf(column.fields().stream().map(f -> f.fieldId()).toList());
    assertThat(view.field("amount").fieldId()).isEqualTo(column.field("amount__string").fieldId());
    assertThat(view.field("amount").type()).isEqualTo(STRING);
    assertThat(view.field("amount__string").fieldId()).isEqualTo(column.field("amount").fieldId());

    Types.StructType v1 = struct(optional(1, "id", LONG), optional(2, "amount", DOUBLE));
    assertThat(FieldPlacement.of(column, v1).view())
        .as("the first writer sees the column as it is")
        .isEqualTo(column);
  }

  @Test
  void promotionsAndNarrowerTypesKeepTheirNames() throws Exception {
    Table table =
        table(
            struct(
                optional(1, "n", INT),
                optional(2, "x", Types.FloatType.get()),
                optional(3, "d", Types.DecimalType.of(9, 2)),
                optional(4, "wide", LONG)));
    Types.StructType promoting =
        struct(
            optional(1, "n", LONG),
            optional(2, "x", DOUBLE),
            optional(3, "d", Types.DecimalType.of(12, 2)),
            optional(4, "wide", INT));

    FieldPlacement placement = FieldPlacement.of(column(table), promoting);
    assertThat(placement.placed()).isEqualTo(promoting);
    assertThat(placement.alternates()).isEmpty();
    assertThat(placement.view()).isEqualTo(column(table));

    evolve(table, promoting);
    assertThat(column(table).fields())
        .extracting(f -> f.type().toString())
        .containsExactly("long", "double", "decimal(12, 2)", "long");

    Types.StructType otherScale = struct(optional(3, "d", Types.DecimalType.of(12, 4)));
    assertThat(FieldPlacement.of(column(table), otherScale).alternates())
        .containsExactly(new Alternate("", "d", "d__decimal"));
  }

  @Test
  void aConflictInsideAStructIsPlacedInsideTheStruct() throws Exception {
    Table table =
        table(
            struct(
                optional(
                    1, "customer", struct(optional(2, "name", STRING), optional(3, "zip", INT))),
                optional(4, "items", list(5, struct(optional(6, "price", DOUBLE)))),
                optional(7, "prices", map(8, 9, struct(optional(10, "amount", DOUBLE))))));
    Types.StructType writer =
        struct(
            optional(
                1, "customer", struct(optional(2, "name", STRING), optional(3, "zip", STRING))),
            optional(4, "items", list(5, struct(optional(6, "price", STRING)))),
            optional(7, "prices", map(8, 9, struct(optional(10, "amount", STRING)))));

    FieldPlacement placement = FieldPlacement.of(column(table), writer);
    assertThat(placement.alternates())
        .extracting(Alternate::path, Alternate::target)
        .containsExactly(
            tuple("customer.zip", "customer.zip__string"),
            tuple("items.element.price", "items.element.price__string"),
            tuple("prices.value.amount", "prices.value.amount__string"));

    evolve(table, writer);
    Schema schema = table.schema();
    assertThat(schema.findField("value.customer.zip").type()).isEqualTo(INT);
    assertThat(schema.findField("value.customer.zip__string").type()).isEqualTo(STRING);
    assertThat(schema.findField("value.items.element.price__string").type()).isEqualTo(STRING);
    assertThat(schema.findField("value.prices.value.amount__string").type()).isEqualTo(STRING);
    assertThat(schema.findField("value.customer__struct")).as("never the struct").isNull();

    Types.StructType view = FieldPlacement.of(column(table), writer).view().asStructType();
    Types.StructType customer = view.field("customer").type().asStructType();
    assertThat(names(customer)).containsExactlyInAnyOrder("name", "zip__string", "zip");
    assertThat(customer.field("zip").fieldId())
        .isEqualTo(schema.findField("value.customer.zip__string").fieldId());
    assertThat(customer.field("zip").type()).isEqualTo(STRING);
    Types.StructType item = view.field("items").type().asListType().elementType().asStructType();
    assertThat(item.field("price").type()).isEqualTo(STRING);
    Types.StructType price = view.field("prices").type().asMapType().valueType().asStructType();
    assertThat(price.field("amount").type()).isEqualTo(STRING);
  }

  @Test
  void aListOfAnotherElementTypeIsANewList() throws Exception {
    Table table = table(struct(optional(1, "tags", list(2, INT))));
    Types.StructType strings = struct(optional(1, "tags", list(2, STRING)));
    Types.StructType longs = struct(optional(1, "tags", list(2, LONG)));

    assertThat(FieldPlacement.of(column(table), longs).alternates())
        .as("int elements promote to long")
        .isEmpty();
    FieldPlacement placement = FieldPlacement.of(column(table), strings);
    assertThat(placement.placed()).isEqualTo(struct(optional(1, "tags__list", list(2, STRING))));

    evolve(table, strings);
    assertThat(table.schema().findType("value.tags__list").asListType().elementType())
        .isEqualTo(STRING);
    assertThat(table.schema().findType("value.tags").asListType().elementType()).isEqualTo(INT);
  }

  @Test
  void aThirdTypeOfTheSameKindTakesTheNextAlternate() throws Exception {
    Table table = table(struct(optional(1, "price", DOUBLE), optional(2, "tags", list(3, INT))));
    Types.StructType v2 =
        struct(
            optional(1, "price", Types.DecimalType.of(10, 2)),
            optional(2, "tags", list(3, STRING)));
    Types.StructType v3 =
        struct(
            optional(1, "price", Types.DecimalType.of(10, 4)),
            optional(2, "tags", list(3, Types.BooleanType.get())));
    evolve(table, v2);

    FieldPlacement placement = FieldPlacement.of(column(table), v3);
    assertThat(placement.alternates())
        .containsExactly(
            new Alternate("", "price", "price__decimal_2"),
            new Alternate("", "tags", "tags__list_2"));
    evolve(table, v3);
    assertThat(names(column(table)))
        .containsExactlyInAnyOrder(
            "price", "tags", "price__decimal", "tags__list", "price__decimal_2", "tags__list_2");
    assertThat(FieldPlacement.of(column(table), v2).alternates())
        .containsExactly(
            new Alternate("", "price", "price__decimal"), new Alternate("", "tags", "tags__list"));
  }

  @Test
  void namesTheWriterUsesAreSkippedAndOtherTypesAtAnAlternateTooLong() throws Exception {
    Table table = table(struct(optional(1, "amount", DOUBLE)));
    Types.StructType own =
        struct(optional(1, "amount", STRING), optional(2, "amount__string", LONG));
    FieldPlacement placement = FieldPlacement.of(column(table), own);
    assertThat(placement.placed())
        .isEqualTo(
            struct(optional(1, "amount__string_2", STRING), optional(2, "amount__string", LONG)));
    evolve(table, own);

    Types.StructType v3 = struct(optional(1, "amount", STRING));
    assertThat(FieldPlacement.of(column(table), v3).alternates())
        .as("amount__string holds longs now; the strings of writer 'own' are at _2")
        .containsExactly(new Alternate("", "amount", "amount__string_2"));
    Types.StructType view = FieldPlacement.of(column(table), v3).view().asStructType();
    assertThat(view.field("amount").fieldId())
        .isEqualTo(column(table).field("amount__string_2").fieldId());
  }

  @Test
  void aPlacementStaysWhereTheCopyPutItWhileTheColumnEvolves() throws Exception {
    Types.StructType v1 =
        struct(
            optional(1, "id", INT),
            optional(2, "amount", DOUBLE),
            optional(3, "address", struct(optional(4, "zip", INT))));
    Table table = table(v1);
    Types.StructType v3 =
        struct(
            optional(1, "id", INT),
            optional(2, "amount", STRING),
            optional(3, "address", struct(optional(4, "zip", STRING))));
    evolve(table, v3);
    FieldPlacement copied = FieldPlacement.of(column(table), v3);
    List<Integer> copiedIds = boundIds(copied.view(), v3);

    Types.StructType v4 =
        struct(
            optional(1, "id", LONG),
            optional(2, "amount", DOUBLE),
            optional(3, "amount__string", LONG),
            optional(5, "note", STRING),
            optional(6, "address", struct(optional(7, "zip", LONG), optional(8, "city", STRING))));
    evolve(table, v4);
    Types.StructType later = column(table);
    assertThat(later.field("id").type()).as("promoted").isEqualTo(LONG);
    assertThat(later.field("amount__string__long").type())
        .as("v4's own amount__string, a long")
        .isEqualTo(LONG);

    FieldPlacement fetched = FieldPlacement.of(later, v3);
    assertThat(fetched.placed()).isEqualTo(copied.placed());
    assertThat(fetched.alternates()).isEqualTo(copied.alternates());
    assertThat(boundIds(fetched.view(), v3))
        .as("each writer field binds to the same column field")
        .isEqualTo(copiedIds);
    assertThat(TypeCoverage.covers(later, fetched.placed())).isTrue();
  }

  @Test
  void anEvolutionPlacesAgainstWhatAnotherBrokerCommittedMeanwhile() throws Exception {
    Table stale = table(struct(optional(1, "amount", DOUBLE)));
    Table other = catalog.loadTable(TableIdentifier.of("db", "t" + (tables - 1)));
    Types.StructType v3 = struct(optional(1, "amount", STRING));
    assertThat(FieldPlacement.of(column(stale), v3).alternates())
        .containsExactly(new Alternate("", "amount", "amount__string"));

    evolve(other, struct(optional(1, "amount__string", LONG)));
    evolve(stale, v3);
    Types.StructType column = column(stale);
    assertThat(column.field("amount__string").type()).isEqualTo(LONG);
    assertThat(column.field("amount__string_2").type()).isEqualTo(STRING);
  }

  @Test
  void kindsAreIcebergsTypeNames() {
    assertThat(FieldPlacement.kind(INT)).isEqualTo("int");
    assertThat(FieldPlacement.kind(Types.TimestampType.withZone())).isEqualTo("timestamptz");
    assertThat(FieldPlacement.kind(Types.DecimalType.of(9, 2))).isEqualTo("decimal");
    assertThat(FieldPlacement.kind(Types.FixedType.ofLength(16))).isEqualTo("fixed");
    assertThat(FieldPlacement.kind(list(1, INT))).isEqualTo("list");
    assertThat(FieldPlacement.kind(struct(optional(1, "a", INT)))).isEqualTo("struct");
  }

  @Test
  void aTopLevelChangeIsLeftForIcebergToRefuse() {
    Types.ListType column = list(1, INT);
    FieldPlacement placement = FieldPlacement.of(column, list(1, STRING));
    assertThat(placement.placed()).isEqualTo(list(1, STRING));
    assertThat(placement.view()).isEqualTo(column);
    assertThat(FieldPlacement.of(null, list(1, STRING)).view()).isNull();
  }

  /** The ids of the column fields {@code writer}'s fields bind to by name in the view. */
  private static List<Integer> boundIds(Type view, Type writer) {
    List<Integer> out = new ArrayList<>();
    for (Types.NestedField field : writer.asStructType().fields()) {
      Types.NestedField bound = view.asStructType().field(field.name());
      out.add(bound.fieldId());
      if (field.type().isStructType()) {
        out.addAll(boundIds(bound.type(), field.type()));
      }
    }
    return out;
  }

  private Table table(Type value) {
    return catalog.createTable(
        TableIdentifier.of("db", "t" + tables++), new Schema(optional(1000, "value", value)));
  }

  private void evolve(Table table, Type writer) throws Exception {
    SchemaEvolution.evolve(table, "value", ++schemaIds, writer);
  }

  private static Types.StructType column(Table table) {
    return table.schema().findField("value").type().asStructType();
  }

  private static List<String> names(Types.StructType struct) {
    return struct.fields().stream().map(Types.NestedField::name).toList();
  }

  private static Types.StructType struct(Types.NestedField... fields) {
    return Types.StructType.of(fields);
  }

  private static Types.ListType list(int elementId, Type element) {
    return Types.ListType.ofOptional(elementId, element);
  }

  private static Types.MapType map(int keyId, int valueId, Type value) {
    return Types.MapType.ofOptional(keyId, valueId, STRING, value);
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }
}
