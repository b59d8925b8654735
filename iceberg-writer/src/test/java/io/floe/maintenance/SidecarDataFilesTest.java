package io.floe.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.format.Compression;
import io.floe.format.TimestampType;
import io.floe.testing.SegmentGenerator;
import io.floe.testing.TableFixture;
import io.floe.testing.TestCatalogs.Storage;
import io.floe.tier.DeleteReason;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarDataFilesTest {
  @TempDir Path dir;

  @Test
  void namesTheFilesOfLiveSegmentsAndForgetsDeletedOnes() throws Exception {
    try (TableFixture f = new TableFixture(dir, Storage.S3)) {
      List<SegmentKey> keys = new ArrayList<>();
      long next = 0;
      for (int i = 0; i < 2; i++) {
        SegmentGenerator gen = SegmentGenerator.seeded(80 + i).startOffset(next);
        for (int b = 0; b < 10; b++) {
          gen.batch(Compression.NONE, TimestampType.CREATE_TIME, 5, 40);
        }
        SegmentKey key = new SegmentKey("named", "id", 0, next, "s" + i);
        f.segments.copy(key, SegmentFiles.of(gen.writeTo(dir.resolve(i + ".log")), next));
        keys.add(key);
        next = gen.nextOffset();
      }
      Table table = f.table("named", "id");
      SupportsPrefixOperations io = (SupportsPrefixOperations) table.io();
      String prefix = SegmentKey.sidecarFolder(table.location());
      List<String> first = f.segments.open(keys.get(0)).dataFiles();
      List<String> second = f.segments.open(keys.get(1)).dataFiles();
      SidecarDataFiles sidecars = new SidecarDataFiles();

      assertThat(sidecars.under(io, prefix))
          .containsExactlyInAnyOrderElementsOf(concat(first, second));
      assertThat(sidecars.remembered()).isEqualTo(2);

      f.segments.delete(keys.get(0), false, DeleteReason.EXPIRED);
      assertThat(sidecars.under(io, prefix)).containsExactlyInAnyOrderElementsOf(second);
      assertThat(sidecars.remembered()).isEqualTo(1);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
