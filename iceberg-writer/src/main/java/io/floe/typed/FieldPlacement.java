package io.floe.typed;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Which field of a typed column holds each field of a writer schema's type, so that a field whose
 * type changed in a way Iceberg cannot promote (a {@code double} that became a {@code string}) goes
 * to a field of its own instead of making the schema's records undecodable.
 *
 * <p>A writer field <em>fits</em> a column field of the same name when Iceberg's union by name
 * takes it: the column already holds it ({@link TypeCoverage}), or promotes to it (int to long,
 * float to double, a wider decimal), or both are structs (always matched, their fields placed in
 * turn), or lists or maps whose elements or values fit (map keys must be held as they are: Iceberg
 * never changes a map key). A field that does not fit goes to the first of {@code <name>__<kind>},
 * {@code <name>__<kind>_2}, ... ({@code kind}: Iceberg's name of the writer field's type, such as
 * {@code string}, {@code long}, {@code struct}, {@code list}, {@code decimal}) that fits or that
 * the column does not have yet, skipping names the writer's struct uses itself.
 *
 * <p>The placement depends only on the writer type and the column type, and it is stable: once a
 * copy placed a writer field at some name and the column was evolved to hold it, every later column
 * places it there too. Columns change only by gaining fields and by promotions (Floe never drops or
 * renames one); every candidate before the chosen one was present and did not fit, and a promotion
 * keeps a type within its family (int and long, float and double, decimals of one scale; structs,
 * lists and maps stay what they are; map keys never change), so it still does not fit; the chosen
 * one still fits for the same reason. So a fetch, on any broker, binds records to the fields the
 * copy wrote them to, with no state kept anywhere.
 */
public final class FieldPlacement {
  private final Type placed;
  private final Type view;
  private final List<Alternate> alternates;

  private FieldPlacement(Type placed, Type view, List<Alternate> alternates) {
    this.placed = placed;
    this.view = view;
    this.alternates = alternates;
  }

  /**
   * Places {@code writer}'s fields in {@code column} (null: the column does not exist yet). Types
   * that cannot be placed at all (a top-level type Iceberg cannot change into the writer's) are
   * left as they are, for Iceberg to refuse.
   */
  public static FieldPlacement of(Type column, Type writer) {
    if (column == null) {
      return new FieldPlacement(writer, null, List.of());
    }
    List<Alternate> alternates = new ArrayList<>();
    Placed fit = fit(column, writer, "", alternates);
    if (fit == null) {
      return new FieldPlacement(writer, column, List.of());
    }
    return new FieldPlacement(fit.placed(), fit.view(), List.copyOf(alternates));
  }

  /**
   * The writer's type with the fields that do not fit renamed to their alternates: what evolving
   * the column unions into it by name.
   */
  public Type placed() {
    return placed;
  }

  /**
   * The column's type as the writer sees it: the same field ids, positions and types, with each
   * alternate carrying its writer field's name and the field of that name carrying the alternate's
   * (a name the writer does not use). Binding the writer by name to it reads and writes the real
   * column's fields by position, as Iceberg's writers and readers do; the records such a codec
   * makes have this type, so their fields are not to be read by name. Null when the column does not
   * exist.
   */
  public Type view() {
    return view;
  }

  /** The writer fields placed at another name, in writer order, depth first. */
  public List<Alternate> alternates() {
    return alternates;
  }

  /**
   * Writer field {@code field} of the struct at {@code parent} (dotted names, with Iceberg's {@code
   * element} and {@code value} for list elements and map values; empty at the top) placed at field
   * {@code name} of that struct.
   */
  public record Alternate(String parent, String field, String name) {
    /** The writer field's path. */
    public String path() {
      return join(parent, field);
    }

    /** The path of the column field that holds it. */
    public String target() {
      return join(parent, name);
    }
  }

  private record Placed(Type placed, Type view) {}

  /** Null when {@code writer} does not fit {@code column}; then nothing is added to alternates. */
  private static Placed fit(Type column, Type writer, String path, List<Alternate> alternates) {
    if (column.isPrimitiveType() || writer.isPrimitiveType()) {
      return primitiveFits(column, writer) ? new Placed(writer, column) : null;
    }
    if (column.typeId() != writer.typeId()) {
      return null;
    }
    return switch (writer.typeId()) {
      case STRUCT ->
          new StructPlacement(column.asStructType(), writer.asStructType(), path).place(alternates);
      case LIST -> list(column.asListType(), writer.asListType(), path, alternates);
      case MAP -> map(column.asMapType(), writer.asMapType(), path, alternates);
      default -> column.equals(writer) ? new Placed(writer, column) : null;
    };
  }

  private static boolean primitiveFits(Type column, Type writer) {
    return column.isPrimitiveType()
        && writer.isPrimitiveType()
        && (TypeCoverage.covers(column, writer)
            || TypeUtil.isPromotionAllowed(column, writer.asPrimitiveType()));
  }

  private static Placed list(
      Types.ListType column, Types.ListType writer, String path, List<Alternate> alternates) {
    Placed element =
        fit(column.elementType(), writer.elementType(), join(path, "element"), alternates);
    if (element == null) {
      return null;
    }
    return new Placed(
        list(writer.elementId(), writer.isElementOptional(), element.placed()),
        list(column.elementId(), column.isElementOptional(), element.view()));
  }

  private static Types.ListType list(int elementId, boolean optional, Type element) {
    return optional
        ? Types.ListType.ofOptional(elementId, element)
        : Types.ListType.ofRequired(elementId, element);
  }

  private static Placed map(
      Types.MapType column, Types.MapType writer, String path, List<Alternate> alternates) {
    if (!TypeCoverage.covers(column.keyType(), writer.keyType())) {
      return null;
    }
    Placed value = fit(column.valueType(), writer.valueType(), join(path, "value"), alternates);
    if (value == null) {
      return null;
    }
    return new Placed(map(writer, value.placed()), map(column, value.view()));
  }

  private static Types.MapType map(Types.MapType map, Type value) {
    return map.isValueOptional()
        ? Types.MapType.ofOptional(map.keyId(), map.valueId(), map.keyType(), value)
        : Types.MapType.ofRequired(map.keyId(), map.valueId(), map.keyType(), value);
  }

  /**
   * Iceberg's name of {@code type} when it is a plain word ({@code int}, {@code string}, {@code
   * timestamptz}), else its type id ({@code decimal}, {@code fixed}, {@code struct}, ...).
   */
  static String kind(Type type) {
    String name = type.isPrimitiveType() ? type.toString() : "";
    return name.matches("[a-z_]+") ? name : type.typeId().name().toLowerCase(Locale.ROOT);
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  private static Types.NestedField renamed(Types.NestedField field, String name, Type type) {
    return Types.NestedField.from(field).withName(name).ofType(type).build();
  }

  /** The placement of one writer struct's fields in one column struct. */
  private static final class StructPlacement {
    private final Types.StructType column;
    private final Types.StructType writer;
    private final String path;
    private final Set<String> taken = new HashSet<>();
    private final List<Types.NestedField> placed = new ArrayList<>();
    private final Map<Integer, Types.NestedField> viewById = new HashMap<>();

    StructPlacement(Types.StructType column, Types.StructType writer, String path) {
      this.column = column;
      this.writer = writer;
      this.path = path;
      writer.fields().forEach(field -> taken.add(field.name()));
    }

    Placed place(List<Alternate> alternates) {
      for (Types.NestedField field : writer.fields()) {
        Types.NestedField same = column.field(field.name());
        if (same == null) {
          placed.add(field);
        } else if (!placeAt(field, same, alternates)) {
          placeElsewhere(field, same, alternates);
        }
      }
      List<Types.NestedField> view = new ArrayList<>();
      column.fields().forEach(field -> view.add(viewById.getOrDefault(field.fieldId(), field)));
      return new Placed(Types.StructType.of(placed), Types.StructType.of(view));
    }

    /** Places {@code field} at column field {@code target} if it fits there. */
    private boolean placeAt(
        Types.NestedField field, Types.NestedField target, List<Alternate> alternates) {
      List<Alternate> inner = new ArrayList<>();
      Placed fit = fit(target.type(), field.type(), join(path, field.name()), inner);
      if (fit == null) {
        return false;
      }
      placed.add(renamed(field, target.name(), fit.placed()));
      viewById.put(target.fieldId(), renamed(target, field.name(), fit.view()));
      if (!target.name().equals(field.name())) {
        alternates.add(new Alternate(path, field.name(), target.name()));
      }
      alternates.addAll(inner);
      return true;
    }

    /**
     * {@code field} does not fit {@code same}, the column field of its name: the first alternate
     * that fits or is new takes it, and {@code same} takes the alternate's name in the view.
     */
    private void placeElsewhere(
        Types.NestedField field, Types.NestedField same, List<Alternate> alternates) {
      String base = field.name() + "__" + kind(field.type());
      for (int n = 1; ; n++) {
        String name = n == 1 ? base : base + "_" + n;
        if (taken.contains(name)) {
          continue;
        }
        Types.NestedField there = column.field(name);
        if (there == null) {
          taken.add(name);
          placed.add(renamed(field, name, field.type()));
          viewById.put(same.fieldId(), renamed(same, name, same.type()));
          alternates.add(new Alternate(path, field.name(), name));
          return;
        }
        if (placeAt(field, there, alternates)) {
          taken.add(name);
          viewById.put(same.fieldId(), renamed(same, name, same.type()));
          return;
        }
      }
    }
  }
}
