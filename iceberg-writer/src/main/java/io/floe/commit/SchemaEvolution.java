package io.floe.commit;

import io.floe.rows.TableCodecs;
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
 * on its own before the segment that brought the schema is written again. Idempotent, so brokers
 * that meet the same new schema at once converge on one table schema: a commit that loses the race
 * refreshes and finds the column already holds the type, or merges again.
 */
public final class SchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolution.class);
  private static final int ATTEMPTS = 20;

  private SchemaEvolution() {}

  /**
   * Makes {@code column} of {@code table} hold values of {@code writerType}.
   *
   * @throws IncompatibleSchemaException if Iceberg's rules forbid the change (a field whose type
   *     changes in a way Iceberg cannot promote)
   */
  public static void evolve(Table table, String column, Type writerType)
      throws IncompatibleSchemaException {
    Schema addition =
        new Schema(Types.NestedField.optional(maxId(writerType) + 1, column, writerType));
    for (int attempt = 1; ; attempt++) {
      table.refresh();
      Types.NestedField current = table.schema().findField(column);
      if (current != null && TypeCoverage.covers(current.type(), writerType)) {
        return;
      }
      try {
        table.updateSchema().unionByNameWith(addition).commit();
        LOG.info(
            "Evolved column {} of table {} for a new writer schema (table schema id now {})",
            column,
            table.name(),
            table.schema().schemaId());
        return;
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IncompatibleSchemaException(e.getMessage(), e);
      } catch (CommitFailedException e) {
        if (attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Makes the column {@code required} names hold its writer schema's values; where Iceberg's rules
   * forbid that, has {@code codecs} keep the bytes of that schema's records, with the reason.
   */
  public static void evolveOrRefuse(
      Table table, SchemaEvolutionRequired required, TableCodecs codecs) {
    try {
      evolve(table, required.column(), required.writerType());
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
