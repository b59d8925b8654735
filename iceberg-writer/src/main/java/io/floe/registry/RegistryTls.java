package io.floe.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The TLS context that trusts the certificates of a configured trust store. */
final class RegistryTls {
  private RegistryTls() {}

  static SSLContext sslContext(String location, Password password, String type) {
    char[] chars = password == null ? null : password.value().toCharArray();
    try (InputStream in = Files.newInputStream(Path.of(location))) {
      KeyStore store = KeyStore.getInstance(type);
      store.load(in, chars);
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException(
          RegistryConfig.SSL_TRUSTSTORE_LOCATION_CONFIG,
          location,
          "cannot be read as a " + type + " trust store: " + e.getMessage());
    }
  }
}
