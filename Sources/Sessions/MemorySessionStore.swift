import Synchronization

/// Sessions in this process's memory: the store of an instance that runs alone. At most `capacity`
/// sessions are kept; when full, expired ones go first, then those closest to expiring.
public final class MemorySessionStore: SessionStore {
  private struct Entry {
    var sealed: [UInt8]
    var until: Int
  }

  private let entries = Mutex<[String: Entry]>([:])
  private let capacity: Int
  private let now: @Sendable () -> Int
  private let available = Atomic<Bool>(true)

  /// An empty store of at most `capacity` sessions, reading Unix seconds from `now`.
  public init(capacity: Int = 100_000, now: @escaping @Sendable () -> Int) {
    self.capacity = max(1, capacity)
    self.now = now
  }

  /// Makes the store answer (true) or fail like an unreachable one (false), for tests.
  public func setAvailable(_ value: Bool) { available.store(value, ordering: .relaxed) }

  /// Every sealed value held now, for tests that look for secrets in them.
  public var dump: [(name: String, sealed: [UInt8])] {
    entries.withLock { $0.map { ($0.key, $0.value.sealed) } }
  }

  /// The sealed record named `name`, or nil.
  public func load(_ name: String) async throws(SessionStoreError) -> [UInt8]? {
    try check()
    let time = now()
    return entries.withLock { entries in
      guard let entry = entries[name] else { return nil }
      guard time < entry.until else {
        entries[name] = nil
        return nil
      }
      return entry.sealed
    }
  }

  /// Stores `sealed` under `name` for `seconds`.
  public func save(_ sealed: [UInt8], as name: String, keepFor seconds: Int) async throws(SessionStoreError) {
    try check()
    let time = now()
    let until = time.addingReportingOverflow(max(1, seconds)).partialValue
    entries.withLock { entries in
      if entries[name] == nil, entries.count >= capacity {
        entries = entries.filter { time < $0.value.until }
        while entries.count >= capacity, let soonest = entries.min(by: { $0.value.until < $1.value.until }) {
          entries[soonest.key] = nil
        }
      }
      entries[name] = Entry(sealed: sealed, until: until)
    }
  }

  /// Removes `name`.
  public func delete(_ name: String) async throws(SessionStoreError) {
    try check()
    _ = entries.withLock { $0.removeValue(forKey: name) }
  }

  private func check() throws(SessionStoreError) {
    guard available.load(ordering: .relaxed) else { throw .unavailable("switched off") }
  }
}
