package io.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.layout.ForkFreeLocalFileSystem;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.junit.jupiter.api.Test;

class HadoopConfTest {
  @Test
  void localFilesGoThroughTheForkFreeFileSystem() throws IOException {
    Configuration conf = (Configuration) HadoopConf.create();
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      assertThat(fs).isInstanceOf(ForkFreeLocalFileSystem.class);
    }
  }

  @Test
  void aFileSystemTheConfigurationNamesStays() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.file.impl", LocalFileSystem.class.getName());
    HadoopConf.withForkFreeLocalFiles(conf);
    try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
      assertThat(fs.getClass()).isEqualTo(LocalFileSystem.class);
    }
  }
}
