import GitHub
import Sealing

/// Server-side reader sessions: creates them at sign-in, finds them from a cookie value, ends them.
/// Records are sealed with XChaCha20-Poly1305 under the session key with the session id as
/// associated data, so a stored value neither reveals its token nor can be moved to another id; the
/// store names each session by a keyed hash of its id, so a dump of it hands out no live session.
///
/// ```swift
/// let book = SessionBook(key: .random(), store: MemorySessionStore(now: clock), now: clock)
/// let (id, _) = try await book.create(userID: 1, login: "octocat", token: t, access: .publicOnly)
/// if case .found(let session) = await book.lookup(cookieValue: id.cookieValue[...]) { … }
/// ```
public final class SessionBook: Sendable {
  /// What a cookie value led to.
  public enum Lookup: Sendable {
    /// Not a session id at all (absent, malformed or tampered): the reader is anonymous.
    case invalid
    /// A well-formed id with no live session (expired, signed out, or never issued): the cookie
    /// should be cleared.
    case ended
    /// A live session.
    case found(Session)
    /// The store cannot answer now: the reader goes on anonymously, and keeps the cookie.
    case unavailable
  }

  let key: SessionKey
  let store: any SessionStore
  /// The timeouts.
  public let policy: SessionPolicy
  private let now: @Sendable () -> Int

  /// A book over `store`, sealing under `key`, timing with `now` (Unix seconds).
  public init(
    key: SessionKey, store: any SessionStore, policy: SessionPolicy = SessionPolicy(),
    now: @escaping @Sendable () -> Int
  ) {
    self.key = key
    self.store = store
    self.policy = policy
    self.now = now
  }

  /// A new session for a reader who just signed in, under a new random id (never one the browser
  /// offered, so a planted cookie cannot fix the session).
  public func create(userID: Int, login: String, token: String, access: RepositoryAccess)
    async throws(SessionStoreError) -> Session
  {
    let time = now()
    let record = SessionRecord(
      reader: ReaderCredential(login: login, userID: userID, token: token, access: access),
      created: time, lastSeen: time)
    let id = SessionID.random()
    try await save(record, id: id, now: time)
    return Session(id: id, record: record, csrfKey: key.csrf)
  }

  /// The session a cookie value names. A valid session seen after `touchInterval` has its idle
  /// timeout extended (one store write at most per interval).
  public func lookup(cookieValue: Substring) async -> Lookup {
    guard let id = SessionID(cookieValue: cookieValue) else { return .invalid }
    let name = storeName(id)
    let sealed: [UInt8]?
    do {
      sealed = try await store.load(name)
    } catch {
      return .unavailable
    }
    guard let sealed, let plain = Sodium.open(sealed, associated: id.bytes, key: key.records),
      var record = SessionRecord(encoded: plain)
    else { return .ended }
    let time = now()
    switch policy.verdict(record, now: time) {
    case .expired:
      try? await store.delete(name)
      return .ended
    case .valid(let touch):
      if touch {
        record.lastSeen = time
        // A failed touch costs nothing now: the session lives on until its stored TTL.
        try? await save(record, id: id, now: time)
      }
      return .found(Session(id: id, record: record, csrfKey: key.csrf))
    }
  }

  /// Ends the session `id` everywhere (the store is shared by every instance).
  public func end(_ id: SessionID) async throws(SessionStoreError) {
    try await store.delete(storeName(id))
  }

  /// The store name of `id`: a keyed BLAKE2b hash, so the store never holds the id itself.
  public func storeName(_ id: SessionID) -> String {
    Sodium.base64URL(Sodium.keyedHash(id.bytes, key: key.storeNames))
  }

  /// The sealed bytes of `record` for `id` (id as associated data), for tests that inspect the store.
  func seal(_ record: SessionRecord, id: SessionID) -> [UInt8] {
    Sodium.seal(record.encoded, associated: id.bytes, key: key.records)
  }

  private func save(_ record: SessionRecord, id: SessionID, now time: Int) async throws(SessionStoreError) {
    try await store.save(seal(record, id: id), as: storeName(id), keepFor: policy.keepFor(record, now: time))
  }
}

/// A live session: its id (for the cookie only), the reader's record and the CSRF token its forms carry.
public struct Session: Sendable, CustomStringConvertible {
  /// The id; only the `Set-Cookie` header may carry it.
  public let id: SessionID
  /// The reader.
  public let record: SessionRecord
  /// The key the CSRF token is derived with.
  let csrfKey: [UInt8]

  /// The token the sign-out form carries: a keyed hash of the id, so it needs no storage, differs for
  /// every session and tells nothing about the id. Computed when a page needs it (fragments do not).
  public var csrfToken: String { Sodium.base64URL(Sodium.keyedHash(id.bytes, key: csrfKey)) }

  /// Whether `presented` is this session's CSRF token, compared in constant time.
  public func acceptsCSRF(_ presented: String) -> Bool {
    Sodium.constantTimeEqual(Array(presented.utf8), Array(csrfToken.utf8))
  }

  /// The reader's login, never the id or the token.
  public var description: String { "Session(login: \(record.reader.login))" }
}
