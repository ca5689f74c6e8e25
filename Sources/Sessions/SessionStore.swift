/// Where sealed session records live: this process's memory, or Redis so that every instance can
/// serve every reader. Names are keyed hashes of session ids, accounts keyed hashes of user ids, and
/// values are sealed, so a store (or a dump of it) holds nothing a reader could be impersonated with.
///
/// Unlike the GitHub cache's `SharedStore`, a session store says when it cannot answer: a missing
/// session signs a reader out, an unreachable store must not.
///
/// Writes never bring a session back: only `create` makes one, and `replace` writes only over the
/// exact value it read (a compare-and-set), so a late touch or renewal after a sign-out changes nothing.
public protocol SessionStore: Sendable {
  /// The sealed record named `name`; nil when there is none (never stored, expired or deleted).
  func load(_ name: String) async throws(SessionStoreError) -> [UInt8]?

  /// Stores a new session `name` of `account` for `seconds`. An account at `limits.perAccount`
  /// sessions loses its oldest to make room; when the store holds `limits.total` sessions of other
  /// accounts, it throws `.full` and changes nothing. No other account's session is ever removed.
  func create(
    _ sealed: [UInt8], as name: String, account: String, keepFor seconds: Int, limits: SessionLimits)
    async throws(SessionStoreError)

  /// Replaces the value of `name` with `sealed` (for `seconds`) only while it still holds exactly
  /// `expected`; false, writing nothing, when it was deleted, expired or changed meanwhile.
  func replace(_ name: String, expected: [UInt8], with sealed: [UInt8], keepFor seconds: Int)
    async throws(SessionStoreError) -> Bool

  /// Removes `name`; true when this call removed it, false when it was not there.
  @discardableResult
  func delete(_ name: String) async throws(SessionStoreError) -> Bool

  /// Takes the renewal lock of `name` for `seconds` (it lapses by itself if the holder dies); nil
  /// when another holder, in this process or another instance, has it.
  func lockRenewal(_ name: String, for seconds: Int) async throws(SessionStoreError) -> RenewalLock?

  /// Releases `lock` if it is still held, and tells everyone waiting on `name`, on every instance,
  /// that the renewal is over (whatever its outcome).
  func unlockRenewal(_ lock: RenewalLock) async

  /// A waiter for the end of a renewal of `name`. Made before the record is read, so that a renewal
  /// that ends between the read and the wait is not missed.
  func renewalWaiter(_ name: String) async -> RenewalWaiter
}

/// How many sessions a store may hold: per account, and in all.
public struct SessionLimits: Sendable, Equatable {
  /// Sessions one account may hold; its oldest go first.
  public var perAccount: Int
  /// Sessions the store may hold; past it `create` refuses.
  public var total: Int
  /// Seconds an account's index outlives its newest session's creation: at least as long as any
  /// session can be kept.
  public var indexLifetime: Int

  /// Limits from their parts (each at least 1).
  public init(perAccount: Int, total: Int, indexLifetime: Int = 40 * 86_400) {
    self.perAccount = max(1, perAccount)
    self.total = max(1, total)
    self.indexLifetime = max(1, indexLifetime)
  }
}

/// Proof of holding a session's renewal lock: its name and this holding's random owner value.
public struct RenewalLock: Sendable, Hashable {
  /// The session's store name.
  public var name: String
  /// Unique to this holding, so a late unlock cannot free someone else's lock.
  public var owner: String
}

/// Why a session store could not answer.
public enum SessionStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The store is down, slow or refusing; the text says why (never a key or a value).
  case unavailable(String)
  /// The store holds as many sessions as it may: a new sign-in is refused.
  case full

  /// A one-line explanation for logs.
  public var description: String {
    switch self {
    case .unavailable(let reason): return "session store unavailable: \(reason)"
    case .full: return "session store full"
    }
  }
}
