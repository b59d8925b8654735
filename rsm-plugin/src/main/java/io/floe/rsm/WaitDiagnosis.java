package io.floe.rsm;

/**
 * What a worker thread is waiting on, read from its stack: for the message of a call that ran past
 * its bound, so that an operator sees which service to look at.
 */
final class WaitDiagnosis {
  private static final String REFRESH =
      "org.apache.iceberg.BaseMetastoreTableOperations.refreshFromMetadataLocation";

  private WaitDiagnosis() {}

  static String of(Thread thread) {
    return of(thread.getStackTrace());
  }

  static String of(StackTraceElement[] stack) {
    String resource = null;
    for (StackTraceElement frame : stack) {
      resource = resource(frame.getClassName());
      if (resource != null) {
        break;
      }
    }
    if (resource == null) {
      resource = "its own work (" + innermostOwnFrame(stack) + ")";
    }
    for (StackTraceElement frame : stack) {
      if ((frame.getClassName() + "." + frame.getMethodName()).equals(REFRESH)) {
        return resource
            + ", as Iceberg retries reading the table's metadata file (20 attempts over about 90 s"
            + " when the object store cannot be read)";
      }
    }
    return resource;
  }

  /** The innermost frame outside the JDK, as {@code Class.method}. */
  private static String innermostOwnFrame(StackTraceElement[] stack) {
    for (StackTraceElement frame : stack) {
      String c = frame.getClassName();
      if (!c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("sun.")) {
        return "in " + c.substring(c.lastIndexOf('.') + 1) + "." + frame.getMethodName();
      }
    }
    return "no frame outside the JDK";
  }

  private static String resource(String className) {
    if (className.startsWith("software.amazon.awssdk.")
        || className.startsWith("org.apache.iceberg.aws.")) {
      return "an object store (S3) request";
    }
    if (className.startsWith("org.apache.iceberg.ClientPoolImpl")) {
      return "a free connection of the catalog's pool (iceberg.clients; all of them are busy)";
    }
    if (className.startsWith("org.postgresql.")
        || className.startsWith("org.sqlite.")
        || className.startsWith("java.sql.")
        || className.startsWith("org.apache.iceberg.jdbc.")) {
      return "the catalog's database (JDBC)";
    }
    // Not org.apache.hc: the AWS SDK's HTTP client is built on it too.
    if (className.startsWith("org.apache.iceberg.rest.")) {
      return "the REST catalog";
    }
    if (className.startsWith("org.apache.iceberg.util.Tasks")) {
      return "a backoff between retries";
    }
    if (className.startsWith("com.github.benmanes.caffeine.")) {
      return "another call loading the same segment or table";
    }
    if (className.startsWith("io.floe.commit.GroupCommit")) {
      return "a commit of the same table that another copy leads";
    }
    return null;
  }
}
