/// Where sealed session records live: this process's memory, or Redis so that every instance can
/// serve every reader. Names are keyed hashes of session ids and values are sealed, so a store (or a
/// dump of it) holds nothing a reader could be impersonated with.
///
/// Unlike the GitHub cache's `SharedStore`, a session store says when it cannot answer: a missing
/// session signs a reader out, an unreachable store must not.
public protocol SessionStore: Sendable {
  /// The sealed record named `name`; nil when there is none (never stored, expired or deleted).
  func load(_ name: String) async throws(SessionStoreError) -> [UInt8]?

  /// Stores `sealed` under `name` for `seconds`, replacing any earlier value.
  func save(_ sealed: [UInt8], as name: String, keepFor seconds: Int) async throws(SessionStoreError)

  /// Removes `name`; nothing happens when it is not there.
  func delete(_ name: String) async throws(SessionStoreError)
}

/// Why a session store could not answer.
public enum SessionStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The store is down, slow or refusing; the text says why (never a key or a value).
  case unavailable(String)

  /// A one-line explanation for logs.
  public var description: String {
    switch self {
    case .unavailable(let reason): return "session store unavailable: \(reason)"
    }
  }
}
