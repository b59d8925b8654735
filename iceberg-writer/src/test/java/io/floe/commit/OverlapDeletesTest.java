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

    assertThat(OverlapDeletes.writtenFor(ofB2, "b2")).isTrue();
    assertThat(OverlapDeletes.writtenFor(ofB2Again, "b2-again")).isTrue();
    assertThat(OverlapDeletes.writtenFor(ofB2Again, "b2"))
        .as("an id that is a prefix of another does not claim its files")
        .isFalse();
    assertThat(OverlapDeletes.writtenFor(ofB2, "b")).isFalse();
    assertThat(OverlapDeletes.writtenFor(aborts, "b2")).isFalse();
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
