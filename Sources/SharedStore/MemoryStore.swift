import Clocks
import Synchronization

/// A `SharedStore` in this process's memory with the same semantics as the Redis store (expiring
/// values and locks, the ledger's rules), for tests of the layers above and for instances that
/// share one process. It can be switched off to stand for an unreachable store.
public final class MemoryStore: SharedStore {
  private struct State {
    var values: [String: (bytes: [UInt8], until: Double)] = [:]
    var locks: [String: (owner: String, until: Double)] = [:]
    var ledgers: [String: LedgerWindow] = [:]
    var available = true
    var nextOwner = 0
    var failures = 0
  }

  private let state = Mutex(State())
  private let now: @Sendable () -> Double

  /// An empty store reading "now" from `time`.
  public init(time: TimeSource) { self.now = { time.wallSeconds() } }

  /// Makes the store answer (true) or behave as unreachable (false).
  public func setAvailable(_ available: Bool) { state.withLock { $0.available = available } }

  /// Puts raw bytes under `key`, as a hostile or foreign writer could.
  public func plant(_ bytes: [UInt8], for key: String) {
    state.withLock { $0.values[key] = (bytes, .infinity) }
  }

  /// The keys of the values stored now.
  public var keys: [String] { state.withLock { Array($0.values.keys) } }

  /// The live value under `key`, or nil when absent, expired or marked unavailable.
  public func value(for key: String) async -> [UInt8]? {
    let time = now()
    return state.withLock { state -> [UInt8]? in
      guard state.available, let stored = state.values[key], time < stored.until else { return nil }
      return stored.bytes
    }
  }

  /// Keeps `bytes` under `key` for `seconds` on the injected clock.
  public func setValue(_ bytes: [UInt8], for key: String, keepFor seconds: Double) async {
    let until = now() + seconds
    state.withLock { if $0.available { $0.values[key] = (bytes, until) } }
  }

  /// Takes the coalescing lock for `key` unless a live holder has it.
  public func lock(_ key: String, for seconds: Double) async -> LockOutcome {
    let time = now()
    return state.withLock { state -> LockOutcome in
      guard state.available else { return .unshared }
      if let held = state.locks[key], time < held.until { return .heldElsewhere }
      state.nextOwner += 1
      let owner = String(state.nextOwner)
      state.locks[key] = (owner, time + seconds)
      return .acquired(LockToken(key: key, owner: owner))
    }
  }

  /// Releases the lock only if `token` still owns it.
  public func unlock(_ token: LockToken) async {
    state.withLock { state in
      if state.available, state.locks[token.key]?.owner == token.owner { state.locks[token.key] = nil }
    }
  }

  /// Spends one call from the resource's ledger, or says why not.
  public func reserve(_ resource: String, now time: Double) async -> LedgerRefusal? {
    state.withLock { state -> LedgerRefusal? in
      guard state.available, var ledger = state.ledgers[resource] else { return nil }
      if let refusal = ledger.refusal(now: time) { return refusal }
      ledger.reserve(now: time)
      state.ledgers[resource] = ledger
      return nil
    }
  }

  /// Returns a reserved call that was never made.
  public func refund(_ resource: String) async {
    state.withLock { state in
      guard state.available else { return }
      state.ledgers[resource]?.refund()
    }
  }

  /// Records the budget GitHub reported for the resource.
  public func record(_ resource: String, limit: Int, remaining: Int, reset: Int) async {
    state.withLock { state in
      guard state.available else { return }
      guard state.ledgers[resource] != nil else {
        state.ledgers[resource] = LedgerWindow(limit: limit, remaining: remaining, reset: reset)
        return
      }
      state.ledgers[resource]?.record(limit: limit, remaining: remaining, reset: reset)
    }
  }

  /// Refuses the resource's calls until `until` (a secondary limit when `secondary`).
  public func block(_ resource: String, until: Int, secondary: Bool) async {
    state.withLock { state in
      guard state.available else { return }
      var ledger = state.ledgers[resource] ?? LedgerWindow(limit: 0, remaining: 0, reset: until)
      ledger.block(until: until, secondary: secondary)
      state.ledgers[resource] = ledger
    }
  }

  /// Always the memory backend; `available` follows ``setAvailable(_:)``.
  public func status() async -> SharedStoreStatus {
    let time = now()
    return state.withLock {
      SharedStoreStatus(
        backend: "memory", available: $0.available, since: time, transitions: 0, failures: $0.failures,
        lastError: nil)
    }
  }
}
