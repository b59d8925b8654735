package io.floe.rsm;

import io.floe.testing.ReadmeReference;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's configuration reference is the ConfigDef's, key for key, default for default. */
class ConfigReferenceTest {

  @Test
  void readmeHoldsTheGeneratedReference() throws Exception {
    ReadmeReference.assertHolds(
        Path.of("..", "README.md"), ConfigDocs.class.getName(), ConfigDocs.markdownTable());
  }
}
