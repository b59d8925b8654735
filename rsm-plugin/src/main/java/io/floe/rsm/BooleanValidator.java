package io.floe.rsm;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Accepts exactly the booleans true and false. */
final class BooleanValidator implements ConfigDef.Validator {
  @Override
  public void ensureValid(String name, Object value) {
    if (!(value instanceof Boolean)) {
      throw new ConfigException(name, value, "must be true or false");
    }
  }

  @Override
  public String toString() {
    return "true or false";
  }
}
