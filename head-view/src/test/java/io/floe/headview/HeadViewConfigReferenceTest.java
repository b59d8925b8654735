package io.floe.headview;

import io.floe.testing.ReadmeReference;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * head-view/README.md's settings reference is the ConfigDef's, key for key, default for default.
 */
class HeadViewConfigReferenceTest {

  @Test
  void readmeHoldsTheGeneratedReference() throws Exception {
    ReadmeReference.assertHolds(
        Path.of("README.md"), HeadViewConfigDocs.class.getName(), HeadViewConfigDocs.markdown());
  }
}
