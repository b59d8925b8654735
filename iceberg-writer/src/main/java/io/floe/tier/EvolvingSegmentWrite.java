package io.floe.tier;

import io.floe.commit.SchemaEvolution;
import io.floe.copy.SegmentWriter;
import io.floe.copy.WrittenSegment;
import io.floe.format.Reencoding;
import io.floe.rows.TableCodecs;
import io.floe.typed.SchemaEvolutionRequired;
import org.apache.iceberg.Table;

/**
 * Writes a segment's data files, evolving a typed table first when a record brings a writer schema
 * the table cannot hold yet.
 */
final class EvolvingSegmentWrite {
  /** Schema changes one copy may make: one per writer schema new to the table, at most. */
  private static final int MAX_EVOLUTIONS = 16;

  private final Reencoding reencoding;
  private final TableCodecs codecs;

  EvolvingSegmentWrite(Reencoding reencoding, TableCodecs codecs) {
    this.reencoding = reencoding;
    this.codecs = codecs;
  }

  /**
   * Writes the segment's data files; when a record brings a writer schema the table cannot hold
   * yet, evolves the table (or, where Iceberg forbids the change, has that schema's records keep
   * their bytes) and writes the segment again.
   */
  WrittenSegment write(Table table, SegmentKey key, SegmentFiles files) {
    for (int evolutions = 0; ; evolutions++) {
      try {
        return new SegmentWriter(table, reencoding, codecs)
            .write(key.partition(), files.baseOffset(), files.log(), key.segmentId());
      } catch (SchemaEvolutionRequired e) {
        if (evolutions >= MAX_EVOLUTIONS) {
          throw new IllegalStateException(
              "Segment "
                  + key.segmentId()
                  + " needed more than "
                  + MAX_EVOLUTIONS
                  + " schema changes of table "
                  + table.name(),
              e);
        }
        SchemaEvolution.evolveOrRefuse(table, e, codecs);
      }
    }
  }
}
