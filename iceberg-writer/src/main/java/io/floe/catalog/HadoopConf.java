package io.floe.catalog;

import io.floe.layout.ForkFreeLocalFileSystem;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/** The Hadoop configuration Floe's catalogs and file IO are built with. */
public final class HadoopConf {
  static final String FILE_IMPL = "fs.file.impl";

  private HadoopConf() {}

  /**
   * Hadoop's configuration (its {@code core-site.xml} included) whose {@code file:} scheme is
   * {@link ForkFreeLocalFileSystem}, unless {@code core-site.xml} names another or the
   * configuration's class loader cannot find it (Hadoop's own is used then); null when Hadoop is
   * not on the class path (only catalogs and file IO that need none will work then).
   */
  public static Object create() {
    try {
      return withForkFreeLocalFiles(new Configuration());
    } catch (LinkageError e) {
      return null;
    }
  }

  /** {@code conf}, its {@code file:} scheme set to {@link ForkFreeLocalFileSystem} as above. */
  static Configuration withForkFreeLocalFiles(Configuration conf) {
    // Hadoop finds the class by name through the configuration's class loader (the thread's
    // context loader when it was made), which must find this one.
    if (conf.get(FILE_IMPL) == null
        && conf.getClassByNameOrNull(ForkFreeLocalFileSystem.class.getName())
            == ForkFreeLocalFileSystem.class) {
      conf.setClass(FILE_IMPL, ForkFreeLocalFileSystem.class, FileSystem.class);
    }
    return conf;
  }
}
