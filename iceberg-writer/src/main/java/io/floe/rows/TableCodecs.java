package io.floe.rows;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.floe.registry.RegistryConfig;
import io.floe.registry.RegistrySchemaLookup;
import io.floe.registry.SchemaRegistryClient;
import io.floe.typed.ColumnFormat;
import io.floe.typed.ParsedWriterSchemas;
import io.floe.typed.SchemaFormats;
import io.floe.typed.SchemaLookup;
import io.floe.typed.SchemaText;
import io.floe.typed.SchemaUnavailableException;
import io.floe.typed.StoredSchemas;
import io.floe.typed.WriterSchemas;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;

/**
 * The row codecs of topic tables, each column as its table's properties say ({@link
 * ColumnFormat#fromProperties}): binary, or typed with writer schemas that copies take from the
 * registry (and store with the table on first use) and fetches take from the table only.
 */
public final class TableCodecs {
  private static final Duration IDLE = Duration.ofMinutes(10);
  private static final Duration NOT_STORED_MEMORY = Duration.ofSeconds(1);

  private final SchemaLookup registry;
  private final Cache<String, WriterSchemas> schemas =
      Caffeine.newBuilder().expireAfterAccess(IDLE).build();
  private final Map<String, String> refused = new ConcurrentHashMap<>();

  /**
   * Codecs whose copies look writer schemas up in {@code registry}; null when no registry is
   * configured (typed tables then keep every record's bytes, with that reason).
   */
  public TableCodecs(SchemaLookup registry) {
    this.registry = registry;
  }

  /** Codecs whose copies look writer schemas up in the registry {@code config} sets, if any. */
  public static TableCodecs of(RegistryConfig config) {
    return new TableCodecs(
        config.enabled() ? new RegistrySchemaLookup(new SchemaRegistryClient(config)) : null);
  }

  /** Codecs of binary tables only, and of typed ones without a registry. */
  public static TableCodecs withoutRegistry() {
    return new TableCodecs(null);
  }

  /** The codec a copy writes rows of {@code schema}, {@code table}'s current one, with. */
  public RowCodec forCopy(Table table, Schema schema) {
    return new RowCodec(
        schema, column(table, RowCodec.KEY, Use.COPY), column(table, RowCodec.VALUE, Use.COPY));
  }

  /**
   * The codec the head view makes rows of {@code table}'s schema with: writer schemas from the
   * table's store or the registry, never stored (the head view does not change the table); a writer
   * schema the table cannot hold yet stops the write with {@link
   * io.floe.typed.SchemaEvolutionRequired}, for the head view to evolve its own view of the table.
   */
  public RowCodec forHead(Table table) {
    return new RowCodec(
        table.schema(),
        column(table, RowCodec.KEY, Use.HEAD),
        column(table, RowCodec.VALUE, Use.HEAD));
  }

  /** The codec a fetch reads rows of {@code table} projected on {@code schema} with. */
  public RowCodec forFetch(Table table, Schema schema) {
    return new RowCodec(
        schema, column(table, RowCodec.KEY, Use.FETCH), column(table, RowCodec.VALUE, Use.FETCH));
  }

  /**
   * Records that writer schema {@code schemaId} cannot evolve {@code column} of {@code table}:
   * copies keep the bytes of its records, with {@code reason}.
   */
  public void refuse(Table table, String column, int schemaId, String reason) {
    String columnKey = key(table, column);
    refused.put(columnKey + '\u0000' + schemaId, reason);
    // The lookup that checks refusals sits behind the parsed schemas, which may hold this one
    schemas.invalidate(Use.COPY.name() + '\u0000' + columnKey);
    schemas.invalidate(Use.HEAD.name() + '\u0000' + columnKey);
  }

  /** Who makes rows: where its writer schemas come from, whether it stores and evolves. */
  private enum Use {
    COPY,
    FETCH,
    HEAD
  }

  private ColumnCodec column(Table table, String column, Use use) {
    ColumnFormat format = ColumnFormat.fromProperties(table.properties(), column);
    if (!format.typed()) {
      return ColumnCodec.BINARY;
    }
    String columnKey = key(table, column);
    WriterSchemas writerSchemas =
        schemas.get(
            use.name() + '\u0000' + columnKey,
            k -> {
              StoredSchemas stored = new StoredSchemas(table.io(), table.location(), column);
              SchemaLookup lookup =
                  use == Use.FETCH ? stored : new CopyLookup(columnKey, stored, use == Use.COPY);
              return new ParsedWriterSchemas(
                  format.format(), SchemaFormats.of(format.format()), lookup);
            });
    return new ColumnCodec(format, writerSchemas, use != Use.FETCH);
  }

  private static String key(Table table, String column) {
    return table.location() + '\u0000' + column;
  }

  /** The table's stored schemas first, then the registry (storing what it returns if asked). */
  private final class CopyLookup implements SchemaLookup {
    private final String columnKey;
    private final StoredSchemas store;
    private final boolean stores;

    /**
     * Ids the store did not hold when asked in the last second: while the registry cannot give them
     * (an outage), each record carrying one would otherwise read the store again.
     */
    private final Cache<Integer, Boolean> notStored =
        Caffeine.newBuilder().expireAfterWrite(NOT_STORED_MEMORY).build();

    CopyLookup(String columnKey, StoredSchemas store, boolean stores) {
      this.columnKey = columnKey;
      this.store = store;
      this.stores = stores;
    }

    @Override
    public SchemaText byId(int schemaId) throws SchemaUnavailableException {
      String reason = refused.get(columnKey + '\u0000' + schemaId);
      if (reason != null) {
        throw new SchemaUnavailableException(reason);
      }
      if (notStored.getIfPresent(schemaId) == null) {
        SchemaText stored = store.load(schemaId);
        if (stored != null) {
          return stored;
        }
        notStored.put(schemaId, Boolean.TRUE);
      }
      SchemaText fresh = registry().byId(schemaId);
      if (stores) {
        store.store(fresh);
      }
      return fresh;
    }

    @Override
    public int latestId(String subject) throws SchemaUnavailableException {
      return registry().latestId(subject);
    }

    private SchemaLookup registry() throws SchemaUnavailableException {
      if (registry == null) {
        throw new SchemaUnavailableException(
            "no schema registry is configured (registry.url) for this typed table");
      }
      return registry;
    }
  }
}
