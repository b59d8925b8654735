package io.floe.commit;

import io.floe.rows.TableCodecs;
import io.floe.typed.FieldPlacement;
import io.floe.typed.SchemaEvolutionRequired;
import io.floe.typed.TypeCoverage;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evolves a typed column so that it holds a new writer schema's values: Iceberg's union by name
 * (new fields added as optional columns, int to long, float to double, wider decimals), committed
 * on its own before the segment that brought the schema is written again. A writer field whose type
 * Iceberg cannot change the column's into goes to a field of its own ({@link FieldPlacement}),
 * placed against the table's schema as each attempt reads it, so a concurrent broker's change is
 * placed against too. Idempotent, so brokers that meet the same new schema at once converge on one
 * table schema: a commit that loses the race refreshes and finds the column already holds the type,
 * or merges again.
 */
public final class SchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolution.class);
  private static final int ATTEMPTS = 20;

  private SchemaEvolution() {}

  /**
   * Makes {@code column} of {@code table} hold values of {@code writerType}, the type of writer
   * schema {@code schemaId}.
   *
   * @throws IncompatibleSchemaException if Iceberg's rules forbid the change even with fields
   *     placed apart (a top-level type that changes, for one)
   */
  public static void evolve(Table table, String column, int schemaId, Type writerType)
      throws IncompatibleSchemaException {
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Types.NestedField current = table.schema().findField(column);
      FieldPlacement placement =
          FieldPlacement.of(current == null ? null : current.type(), writerType);
      Type placed = placement.placed();
      if (current != null && TypeCoverage.covers(current.type(), placed)) {
        return;
      }
      Schema addition = new Schema(Types.NestedField.optional(maxId(placed) + 1, column, placed));
      try {
        table.updateSchema().unionByNameWith(addition).commit();
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IncompatibleSchemaException(e.getMessage(), e);
      } catch (CommitFailedException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
        continue;
      }
      logAlternates(table, column, schemaId, placement);
      LOG.info(
          "Evolved column {} of table {} for writer schema {} (table schema id now {})",
          column,
          table.name(),
          schemaId,
          table.schema().schemaId());
      return;
    }
  }

  /**
   * Makes the column {@code required} names hold its writer schema's values; where Iceberg's rules
   * forbid that, has {@code codecs} keep the bytes of that schema's records, with the reason.
   */
  public static void evolveOrRefuse(
      Table table, SchemaEvolutionRequired required, TableCodecs codecs) {
    try {
      evolve(table, required.column(), required.schemaId(), required.writerType());
    } catch (IncompatibleSchemaException incompatible) {
      String reason =
          "writer schema "
              + required.schemaId()
              + " cannot evolve column "
              + required.column()
              + " by Iceberg's rules: "
              + incompatible.getMessage();
      LOG.warn("Table {}: {}; its records keep their bytes", table.name(), reason);
      codecs.refuse(table, required.column(), required.schemaId(), reason);
    }
  }

  private static void logAlternates(
      Table table, String column, int schemaId, FieldPlacement placement) {
    for (FieldPlacement.Alternate alternate : placement.alternates()) {
      LOG.info(
          "Table {}: field {}.{} of writer schema {} goes to {}.{}: Iceberg cannot change the"
              + " column's field of that name into its type",
          table.name(),
          column,
          alternate.path(),
          schemaId,
          column,
          alternate.target());
    }
  }

  private static int maxId(Type type) {
    Set<Integer> ids =
        TypeUtil.indexById(Types.StructType.of(Types.NestedField.optional(0, "t", type))).keySet();
    return ids.stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  /** A writer schema whose type Iceberg's rules do not let the column take. */
  public static final class IncompatibleSchemaException extends Exception {
    private static final long serialVersionUID = 1L;

    IncompatibleSchemaException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
