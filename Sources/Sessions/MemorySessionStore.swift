import Clocks
import Synchronization

/// Sessions in this process's memory: the store of an instance that runs alone. It holds at most
/// `SessionLimits.total` sessions, at most `perAccount` per account (that account's oldest go first),
/// and refuses new ones when full: an expired session is dropped to make room, a live one of another
/// account never is. Expiries sit in a min-heap, so making room costs O(log n), not a scan.
public final class MemorySessionStore: SessionStore {
  private struct Entry {
    var sealed: [UInt8]
    var until: Int
    var account: String
  }

  private struct State {
    var entries: [String: Entry] = [:]
    /// Each account's session names, oldest first (a handful each).
    var accounts: [String: [String]] = [:]
    /// (until, name) for every write; an item whose entry has another `until` (touched, deleted) is stale.
    var expiries = ExpiryHeap()
    var locks: [String: (owner: String, until: Int)] = [:]
    var nextOwner = 0

    /// Removes `name` and its account's mention of it; the entry, if there was one.
    @discardableResult
    mutating func remove(_ name: String) -> Entry? {
      guard let entry = entries.removeValue(forKey: name) else { return nil }
      accounts[entry.account]?.removeAll { $0 == name }
      if accounts[entry.account]?.isEmpty == true { accounts[entry.account] = nil }
      return entry
    }

    /// Drops every session expired at `time` from the top of the heap.
    mutating func dropExpired(at time: Int) {
      while let top = expiries.min, top.until <= time {
        expiries.popMin()
        if let entry = entries[top.name], entry.until == top.until { remove(top.name) }
      }
    }

    mutating func write(_ name: String, _ entry: Entry) {
      entries[name] = entry
      expiries.push(until: entry.until, name: name)
      // Stale heap items (touches, deletions) are dropped wholesale once they outnumber the live ones.
      if expiries.count > 2 * entries.count + 1024 {
        expiries = ExpiryHeap(entries.map { (until: $0.value.until, name: $0.key) })
      }
    }
  }

  private let state = Mutex(State())
  private let now: @Sendable () -> Int
  private let available = Atomic<Bool>(true)
  private let signals = RenewalSignals()

  /// An empty store reading "now" from `time`. (`capacity` is accepted for older callers and
  /// unused: the limits come with each `create`.)
  public init(capacity: Int = 100_000, time: TimeSource) {
    self.now = { time.epochSeconds() }
  }

  /// Makes the store answer (true) or fail like an unreachable one (false), for tests.
  public func setAvailable(_ value: Bool) { available.store(value, ordering: .relaxed) }

  /// Every sealed value held now, for tests that look for secrets in them.
  public var dump: [(name: String, sealed: [UInt8])] {
    state.withLock { $0.entries.map { ($0.key, $0.value.sealed) } }
  }

  /// Sessions held now (expired ones not yet dropped included).
  public var count: Int { state.withLock { $0.entries.count } }

  /// The names of `account`'s sessions, oldest first, for tests.
  public func sessions(of account: String) -> [String] { state.withLock { $0.accounts[account] ?? [] } }

  /// The sealed record named `name`, or nil.
  public func load(_ name: String) async throws(SessionStoreError) -> [UInt8]? {
    try check()
    let time = now()
    return state.withLock { state in
      guard let entry = state.entries[name] else { return nil }
      guard time < entry.until else {
        state.remove(name)
        return nil
      }
      return entry.sealed
    }
  }

  /// A new session, within `limits` (see `SessionStore.create`).
  public func create(
    _ sealed: [UInt8], as name: String, account: String, keepFor seconds: Int, limits: SessionLimits
  ) async throws(SessionStoreError) {
    try check()
    let time = now()
    let until = time.addingReportingOverflow(max(1, seconds)).partialValue
    let full = state.withLock { state -> Bool in
      state.dropExpired(at: time)
      for old in state.accounts[account] ?? [] where !(state.entries[old].map { time < $0.until } ?? false) {
        state.remove(old)
      }
      let theirs = state.accounts[account] ?? []
      let making = max(0, theirs.count - limits.perAccount + 1)
      if state.entries[name] == nil, state.entries.count - making >= limits.total { return true }
      for old in theirs.prefix(making) { state.remove(old) }
      state.remove(name)
      state.write(name, Entry(sealed: sealed, until: until, account: account))
      state.accounts[account, default: []].append(name)
      return false
    }
    if full { throw .full }
  }

  /// Writes `sealed` over `expected` only (see `SessionStore.replace`).
  public func replace(_ name: String, expected: [UInt8], with sealed: [UInt8], keepFor seconds: Int)
    async throws(SessionStoreError) -> Bool
  {
    try check()
    let time = now()
    let until = time.addingReportingOverflow(max(1, seconds)).partialValue
    return state.withLock { state in
      guard var entry = state.entries[name], time < entry.until, entry.sealed == expected else {
        return false
      }
      entry.sealed = sealed
      entry.until = until
      state.write(name, entry)
      return true
    }
  }

  /// Removes `name`; true when it was there.
  @discardableResult
  public func delete(_ name: String) async throws(SessionStoreError) -> Bool {
    try check()
    return state.withLock { $0.remove(name) != nil }
  }

  /// The renewal lock of `name`, unless a live holder has it.
  public func lockRenewal(_ name: String, for seconds: Int) async throws(SessionStoreError) -> RenewalLock? {
    try check()
    let time = now()
    return state.withLock { state -> RenewalLock? in
      if let held = state.locks[name], time < held.until { return nil }
      state.nextOwner += 1
      let owner = String(state.nextOwner)
      state.locks[name] = (owner, time.addingReportingOverflow(max(1, seconds)).partialValue)
      return RenewalLock(name: name, owner: owner)
    }
  }

  /// Releases `lock` if still held, and wakes the waiters.
  public func unlockRenewal(_ lock: RenewalLock) async {
    state.withLock { state in
      if state.locks[lock.name]?.owner == lock.owner { state.locks[lock.name] = nil }
    }
    signals.fire(lock.name)
  }

  /// A waiter for the end of a renewal of `name` in this process.
  public func renewalWaiter(_ name: String) async -> RenewalWaiter { signals.waiter(name) }

  private func check() throws(SessionStoreError) {
    guard available.load(ordering: .relaxed) else { throw .unavailable("switched off") }
  }
}
