package io.floe.commit;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;

class OverlapDeletesTest {

  @Test
  void aDeleteFileBelongsToTheSegmentItsNameCarriesWhole() {
    DeleteFile ofB2 = deletes("00001-1-" + OverlapDeletes.operationId("b2") + "-00001.parquet");
    DeleteFile ofB2Again =
        deletes("00001-1-" + OverlapDeletes.operationId("b2-again") + "-00001.parquet");
    DeleteFile aborts = deletes("00001-1-aborts-b2-00001.parquet");

    assertThat(OverlapDeletes.writtenFor("b2").test(ofB2)).isTrue();
    assertThat(OverlapDeletes.writtenFor("b2-again").test(ofB2Again)).isTrue();
    assertThat(OverlapDeletes.writtenFor("b2").test(ofB2Again))
        .as("an id that is a prefix of another does not claim its files")
        .isFalse();
    assertThat(OverlapDeletes.writtenFor("b").test(ofB2)).isFalse();
    assertThat(OverlapDeletes.writtenFor("b2").test(aborts)).isFalse();
  }

  private static DeleteFile deletes(String name) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofPositionDeletes()
        .withPath("s3://bucket/warehouse/kafka/orders/data/" + name)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(10)
        .withRecordCount(1)
        .build();
  }
}
