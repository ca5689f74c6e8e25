import Synchronization

/// A `ResponseCache` behind a mutex, so that a fresh hit can be read without entering the
/// `GitHubState` actor: the hop onto the actor and back costs more than the lookup, and a cache hit
/// is what nearly every fragment asks for. Everything else still runs on the actor, which keeps its
/// check-then-act sequences (a miss re-checks the cache there before it joins or starts a flight).
final class LockedResponseCache<Value: Sendable>: Sendable {
  private let cache: Mutex<ResponseCache<Value>>

  init(capacity: Int) { cache = Mutex(ResponseCache(capacity: capacity)) }

  /// The entry, marked most recently used.
  func get(_ key: String) -> ResponseCache<Value>.Entry? { cache.withLock { $0.get(key) } }

  /// The entry without touching its recency.
  func peek(_ key: String) -> ResponseCache<Value>.Entry? { cache.withLock { $0.peek(key) } }

  /// Inserts or replaces, then evicts down to the bound.
  func set(_ key: String, _ entry: ResponseCache<Value>.Entry) { cache.withLock { $0.set(key, entry) } }

  /// New expiry (and ETag, when given) for an entry a 304 confirmed.
  func refresh(_ key: String, expires: Double, etag: String?) {
    cache.withLock { $0.refresh(key, expires: expires, etag: etag) }
  }

  /// Bytes the entries account for.
  var totalBytes: Int { cache.withLock { $0.totalBytes } }

  /// Entries held.
  var count: Int { cache.withLock { $0.count } }
}
