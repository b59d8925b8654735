package io.floe.rsm;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CachingCatalog;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;

/**
 * The catalog with loaded tables cached per identifier (Iceberg's {@link CachingCatalog}, expiring
 * after access), so that fetches and copies of a topic do not load its table metadata each time.
 * Namespace operations go to the wrapped catalog (CachingCatalog does not offer them). Commits
 * refresh their table first, so a cached table never commits against stale metadata.
 */
final class TableCachingCatalog implements Catalog, SupportsNamespaces, Closeable {
  private final Catalog delegate;
  private final Catalog cached;

  TableCachingCatalog(Catalog delegate, long expirationMs) {
    this.delegate = delegate;
    this.cached = CachingCatalog.wrap(delegate, expirationMs);
  }

  Catalog delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return cached.listTables(namespace);
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    return cached.loadTable(identifier);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return cached.tableExists(identifier);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return cached.buildTable(identifier, schema);
  }

  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    return cached.registerTable(identifier, metadataFileLocation);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return cached.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    cached.renameTable(from, to);
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    cached.invalidateTable(identifier);
  }

  private SupportsNamespaces namespaces() {
    if (delegate instanceof SupportsNamespaces n) {
      return n;
    }
    throw new UnsupportedOperationException(
        "Catalog " + delegate.name() + " does not support namespaces");
  }

  /**
   * Whether the wrapped catalog has namespaces at all (some, like a Hadoop catalog, need none
   * created).
   */
  boolean supportsNamespaces() {
    return delegate instanceof SupportsNamespaces;
  }

  @Override
  public synchronized void createNamespace(Namespace namespace, Map<String, String> metadata) {
    // Serialized: concurrent copies of a new topic's partitions all try to create the namespace
    // first. Some
    // catalogs (JdbcCatalog on SQLite) report a lost race with another broker as a SQL error rather
    // than
    // AlreadyExistsException: a namespace that exists afterwards is what was asked for.
    if (namespaceExists(namespace)) {
      return;
    }
    try {
      namespaces().createNamespace(namespace, metadata);
    } catch (RuntimeException e) {
      if (!namespaces().namespaceExists(namespace)) {
        throw e;
      }
    }
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) throws NoSuchNamespaceException {
    return namespaces().listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace)
      throws NoSuchNamespaceException {
    return namespaces().loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    // a catalog without namespaces (a Hadoop catalog) needs none created
    return !supportsNamespaces() || namespaces().namespaceExists(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) throws NamespaceNotEmptyException {
    return namespaces().dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) {
    return namespaces().setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) {
    return namespaces().removeProperties(namespace, properties);
  }

  @Override
  public void close() throws IOException {
    if (delegate instanceof Closeable c) {
      c.close();
    }
  }
}
