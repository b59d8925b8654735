package io.floe.headview;

import io.floe.commit.SchemaEvolution;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import io.floe.rows.TableCodecs;
import io.floe.typed.SchemaEvolutionRequired;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;

/**
 * Writes head files, evolving the head's view of the table first when a head record brings a writer
 * schema the table does not hold yet (no copy met it so far), as a copy would evolve the table, so
 * that head rows are typed too. Only the view's metadata changes; the real table never does.
 */
final class EvolvingHeadWrite {
  /** Schema changes of a head's view one load may make: one per writer schema new to it. */
  private static final int MAX_VIEW_EVOLUTIONS = 16;

  private final BaseTable view;
  private final Map<String, String> writeProperties;
  private final TableCodecs codecs;
  private long writeNanos;

  EvolvingHeadWrite(BaseTable view, Map<String, String> writeProperties, TableCodecs codecs) {
    this.view = view;
    this.writeProperties = writeProperties;
    this.codecs = codecs;
  }

  List<HeadFile> write(KafkaHead kafka, String topic, List<Ranges> reads) {
    for (int evolutions = 0; ; evolutions++) {
      HeadWriter writer = new HeadWriter(view, writeProperties, codecs);
      try {
        return writer.write(kafka, topic, reads);
      } catch (SchemaEvolutionRequired e) {
        evolve(e, evolutions);
      } finally {
        writeNanos += writer.writeNanos();
      }
    }
  }

  /** {@link HeadTrims#trim}, on the view as it is now (after any evolution of this load). */
  List<HeadFile> trim(List<HeadPlan.Trim> trims, Consumer<String> onWritten) {
    if (trims.isEmpty()) {
      return List.of();
    }
    HeadWriter writer = new HeadWriter(view, writeProperties, codecs);
    HeadTrims trimming = new HeadTrims(view, writer.writerFactory(), writer.outputFiles());
    try {
      return trimming.trim(trims, onWritten);
    } finally {
      writeNanos += trimming.nanos();
    }
  }

  long writeNanos() {
    return writeNanos;
  }

  /**
   * A head record brought a writer schema the table does not hold yet (no copy met it so far): the
   * view of the table takes it, as a copy would evolve the table, so that head rows are typed too.
   * Only the view's metadata changes; the real table never does.
   */
  private void evolve(SchemaEvolutionRequired e, int evolutions) {
    if (evolutions >= MAX_VIEW_EVOLUTIONS) {
      throw new IllegalStateException(
          "The head of "
              + view.name()
              + " needed more than "
              + MAX_VIEW_EVOLUTIONS
              + " schema changes",
          e);
    }
    SchemaEvolution.evolveOrRefuse(view, e, codecs);
  }
}
