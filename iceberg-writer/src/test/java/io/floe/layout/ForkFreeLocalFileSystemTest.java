package io.floe.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForkFreeLocalFileSystemTest {
  @TempDir java.nio.file.Path dir;

  @Test
  void everyPermissionMapsToTheSamePosixBits() {
    for (short bits = 0; bits < 512; bits++) {
      FsPermission permission = new FsPermission(bits);
      assertThat(PosixFilePermissions.toString(ForkFreeLocalFileSystem.posix(permission)))
          .as("mode %o", bits)
          .isEqualTo(permission.toString());
    }
  }

  @Test
  void filesAndFoldersGetHadoopsPermissionsAndChecksums() throws IOException {
    Configuration conf = new Configuration(false);
    FsPermission umask = FsPermission.getUMask(conf);
    try (FileSystem fs = new ForkFreeLocalFileSystem()) {
      fs.initialize(URI.create("file:///"), conf);
      Path file = new Path(dir.toUri().toString(), "a/b/data.parquet");
      try (FSDataOutputStream out = fs.create(file, false)) {
        out.write("rows".getBytes(StandardCharsets.UTF_8));
      }

      java.nio.file.Path local = dir.resolve("a/b/data.parquet");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(local)))
          .isEqualTo(FsPermission.getFileDefault().applyUMask(umask).toString());
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("a/b"))))
          .isEqualTo(FsPermission.getDirDefault().applyUMask(umask).toString());
      assertThat(dir.resolve("a/b/.data.parquet.crc")).exists();
      try (FSDataInputStream in = fs.open(file)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("rows");
      }

      fs.setPermission(file, new FsPermission((short) 0600));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(local)))
          .isEqualTo("rw-------");
      assertThat(fs.getFileStatus(file).getPermission()).isEqualTo(new FsPermission((short) 0600));
    }
  }
}
