package io.floe.registry;

import com.github.benmanes.caffeine.cache.Cache;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A cache whose concurrent misses of one key make one load: the first caller loads in its own
 * thread, the others wait for its result or its failure. A failure is not cached.
 */
final class CachedLookup<K, V> {
  private final Cache<K, V> cache;
  private final ConcurrentHashMap<K, CompletableFuture<V>> loading = new ConcurrentHashMap<>();

  CachedLookup(Cache<K, V> cache) {
    this.cache = cache;
  }

  V get(K key, Supplier<V> loader) {
    V hit = cache.getIfPresent(key);
    if (hit != null) {
      return hit;
    }
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> other = loading.putIfAbsent(key, mine);
    if (other != null) {
      return await(other);
    }
    try {
      V value = cache.getIfPresent(key);
      if (value == null) {
        value = loader.get();
        cache.put(key, value);
      }
      mine.complete(value);
      return value;
    } catch (RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      loading.remove(key, mine);
    }
  }

  void put(K key, V value) {
    cache.put(key, value);
  }

  private static <V> V await(CompletableFuture<V> other) {
    try {
      return other.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RegistryUnavailableException("Interrupted while waiting for a schema lookup", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw (Error) e.getCause();
    }
  }
}
