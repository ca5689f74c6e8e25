/// The tier several instances share: cached values, a rate-limit ledger and coalescing locks.
///
/// The GitHub layer keeps its own in-process layer (decoded cache, ledger, requests in flight) in
/// front, which is the whole store when none is configured. A shared store never throws and never
/// blocks for long: when it cannot answer (down, slow, refusing) it says "nothing shared" (a miss,
/// no refusal, `.unshared`), so callers carry on locally. Detecting that, logging it once and
/// reconnecting is the store's concern.
public protocol SharedStore: Sendable {
  /// The bytes stored under `key`, or nil (absent, expired, or the store is unavailable).
  func value(for key: String) async -> [UInt8]?

  /// Stores `bytes` under `key` for `seconds`.
  func setValue(_ bytes: [UInt8], for key: String, keepFor seconds: Double) async

  /// Tries to take the lock named `key` for `seconds`; it expires by itself if the holder dies.
  func lock(_ key: String, for seconds: Double) async -> LockOutcome

  /// Releases a lock this process holds (only if it still holds it).
  func unlock(_ token: LockToken) async

  /// Counts one call to `resource` at `now` (Unix seconds), or says why it may not be made.
  func reserve(_ resource: String, now: Double) async -> LedgerRefusal?

  /// Returns a reservation that cost nothing upstream (a 304, or a call that never arrived).
  func refund(_ resource: String) async

  /// Folds in the limits a response reported: within a window the lower count wins; a later
  /// window replaces the figures.
  func record(_ resource: String, limit: Int, remaining: Int, reset: Int) async

  /// Marks `resource` exhausted until `until` (Unix seconds) after the upstream refused a call.
  func block(_ resource: String, until: Int, secondary: Bool) async

  /// Availability and counters, for metrics and health checks.
  func status() async -> SharedStoreStatus
}

/// The answer to a lock attempt.
public enum LockOutcome: Sendable, Equatable {
  /// This process holds the lock until it unlocks or the lock expires.
  case acquired(LockToken)
  /// Another holder has it: wait for the value it will store.
  case heldElsewhere
  /// The store cannot answer now: proceed without a shared lock.
  case unshared
}

/// Proof of holding a lock: its key and this holder's random owner value.
public struct LockToken: Sendable, Hashable {
  /// The lock's name.
  public var key: String
  /// A value unique to this holding, so a late unlock cannot free someone else's lock.
  public var owner: String

  /// A token from its parts (a store's implementation makes them).
  public init(key: String, owner: String) { (self.key, self.owner) = (key, owner) }
}

/// Why the shared ledger refused a call.
public struct LedgerRefusal: Sendable, Equatable {
  /// Unix seconds before which the resource may not be called.
  public var until: Int
  /// True for a secondary (abuse) limit, false when the window's budget is spent.
  public var secondary: Bool

  /// A refusal from its parts.
  public init(until: Int, secondary: Bool) { (self.until, self.secondary) = (until, secondary) }
}

/// What `/metrics` and `/healthz` show about a shared store.
public struct SharedStoreStatus: Sendable {
  /// A short name of the backend, such as `redis`.
  public var backend: String
  /// True while the store answers; false while the process runs on its local layer alone.
  public var available: Bool
  /// Unix seconds of the last change of `available`.
  public var since: Double
  /// How often availability changed.
  public var transitions: Int
  /// Commands that failed or timed out.
  public var failures: Int
  /// Commands the store refused with an error reply (each treated as a miss).
  public var errorReplies: Int
  /// The last failure, without secrets.
  public var lastError: String?
  /// What the backend's client has seen beyond these counters, in the backend's own type, for the
  /// code that built the store to read: the Redis store gives its `RedisTelemetry.Snapshot` (the
  /// server's role, failovers, TLS handshakes); nil for a backend with nothing more to say.
  public var telemetry: (any Sendable)?

  /// A status from its parts.
  public init(
    backend: String, available: Bool, since: Double, transitions: Int, failures: Int, errorReplies: Int = 0,
    lastError: String?, telemetry: (any Sendable)? = nil
  ) {
    self.telemetry = telemetry
    self.errorReplies = errorReplies
    self.backend = backend
    self.available = available
    self.since = since
    self.transitions = transitions
    self.failures = failures
    self.lastError = lastError
  }
}
