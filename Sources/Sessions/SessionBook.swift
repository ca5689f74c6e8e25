import Clocks
import Credentials
import Sealing
import Synchronization

/// Server-side reader sessions: creates them at sign-in, finds them from a cookie value, renews
/// their expiring tokens, ends them. Records are sealed with XChaCha20-Poly1305 under the session key
/// with the session id as associated data, so a stored value neither reveals its token nor can be
/// moved to another id; the store names each session by a keyed hash of its id and each account by
/// a keyed hash of its user id, so a dump of it hands out no live session and no login.
///
/// ```swift
/// let book = SessionBook(key: .random(), store: MemorySessionStore(time: time), time: time)
/// let reader = ReaderCredential(login: "octocat", userID: 1, token: t, access: .publicOnly)
/// let session = try await book.create(reader: reader)
/// if case .found(let session) = await book.lookup(cookieValue: session.id.cookieValue[...]) {
///   if book.policy.tokenVerdict(session.record, now: clock()) != .use {
///     _ = await book.renew(session, refused: nil, with: refresher)
///   }
/// }
/// ```
public final class SessionBook: Sendable {
  /// What a cookie value led to.
  public enum Lookup: Sendable {
    /// Not a session id at all (absent, malformed or tampered): the reader is anonymous.
    case invalid
    /// A well-formed id with no live session (signed out, or never issued): the cookie should be
    /// cleared.
    case ended
    /// A session that this lookup found past its idle or absolute timeout and ended: the cookie
    /// should be cleared and `stale` revoked.
    case expired(stale: StaleToken)
    /// A live session.
    case found(Session)
    /// The store cannot answer now: the reader goes on anonymously, and keeps the cookie.
    case unavailable
  }

  /// What a renewal of a session's token came to.
  public enum Renewal: Sendable {
    /// The session with a token to use: renewed here, renewed meanwhile by another request or
    /// instance, or one that needed no renewal after all.
    case renewed(Session)
    /// GitHub refused the refresh token, or the token expired with nothing to renew it: the session
    /// is ended (deleted everywhere) and the reader must sign in again.
    case refused
    /// The session was ended meanwhile (signed out elsewhere).
    case ended
    /// It could not be renewed now (GitHub or the store unreachable, or the renewal under way
    /// elsewhere did not finish in time): the session is kept; this request goes on without it.
    case unavailable
  }

  /// Seconds the renewal lock is held at most: longer than GitHub's call can take (its timeout),
  /// so no other instance can start a second refresh of the same refresh token meanwhile.
  public static let renewalLockSeconds = 30
  /// How long a request waits for a renewal under way elsewhere before going on without it.
  public static let renewalWaitLimit: Duration = .seconds(12)
  /// Longest single wait for the renewal's event before the record is read again.
  static let renewalPollInterval: Duration = .seconds(1)

  let key: SessionKey
  let store: any SessionStore
  /// The timeouts, renewal margin and caps.
  public let policy: SessionPolicy
  private let now: @Sendable () -> Int
  /// Renewals under way in this process, by store name: a second request for the same session
  /// waits for the first instead of starting its own.
  private let flights = Mutex<[String: Task<Renewal, Never>]>([:])

  /// A book over `store`, sealing under `key`, reading "now" from `time`.
  public init(
    key: SessionKey, store: any SessionStore, policy: SessionPolicy = SessionPolicy(), time: TimeSource
  ) {
    self.key = key
    self.store = store
    self.policy = policy
    self.now = { time.epochSeconds() }
  }

  /// A new session for a reader who just signed in, under a new random id (never one the browser
  /// offered, so a planted cookie cannot fix the session). The account's oldest session ends when
  /// it already has `policy.sessionsPerAccount`; `.full` when the store holds `policy.maxSessions`.
  public func create(reader: ReaderCredential, expiry: TokenExpiry? = nil) async throws(SessionStoreError)
    -> Session
  {
    let time = now()
    let record = SessionRecord(reader: reader, created: time, lastSeen: time, expiry: expiry)
    let id = SessionID.random()
    try await store.create(
      seal(record, id: id), as: storeName(id), account: accountName(reader.userID),
      keepFor: policy.keepFor(record, now: time),
      limits: SessionLimits(
        perAccount: policy.sessionsPerAccount, total: policy.maxSessions,
        indexLifetime: policy.absolute.addingReportingOverflow(policy.revocationGrace).partialValue))
    return Session(id: id, record: record, csrfKey: key.csrf)
  }

  /// `create(reader:expiry:)` from the credential's parts.
  public func create(
    userID: Int, login: String, token: String, access: RepositoryAccess, expiry: TokenExpiry? = nil
  ) async throws(SessionStoreError) -> Session {
    try await create(
      reader: ReaderCredential(login: login, userID: userID, token: token, access: access), expiry: expiry)
  }

  /// The session a cookie value names. A valid session seen after `touchInterval` has its idle
  /// timeout extended (one store write at most per interval, and only over the value just read, so
  /// a touch racing a sign-out or a renewal changes nothing).
  public func lookup(cookieValue: Substring) async -> Lookup {
    guard let id = SessionID(cookieValue: cookieValue) else { return .invalid }
    let name = storeName(id)
    let sealed: [UInt8]?
    do {
      sealed = try await store.load(name)
    } catch {
      return .unavailable
    }
    guard let sealed, var record = open(sealed, id: id) else { return .ended }
    let time = now()
    switch policy.verdict(record, now: time) {
    case .expired:
      // Only the request that removed it revokes, however many noticed at once.
      let removed = (try? await store.delete(name)) ?? false
      return removed ? .expired(stale: StaleToken(record.reader.token)) : .ended
    case .valid(let touch):
      if touch {
        record.lastSeen = time
        // A failed touch costs nothing now: the session lives on until its stored TTL.
        _ = try? await store.replace(
          name, expected: sealed, with: seal(record, id: id), keepFor: policy.keepFor(record, now: time))
      }
      return .found(Session(id: id, record: record, csrfKey: key.csrf))
    }
  }

  /// Ends the session `id` everywhere (the store is shared by every instance); true when this call
  /// ended it, false when it was already gone.
  @discardableResult
  public func end(_ id: SessionID) async throws(SessionStoreError) -> Bool {
    try await store.delete(storeName(id))
  }

  /// Renews `session`'s token, once for every request and instance that asks at the same time.
  /// `refused` is the token GitHub just answered 401 to, or nil when the policy's verdict asks for
  /// a refresh before use. Requests in this process share one flight; across instances the
  /// session's renewal lock lets one refresh while the others wait for its event, then read the
  /// rotated token from the store. A refresh token is used at most once.
  public func renew(_ session: Session, refused: String?, with refresher: any TokenRefresher) async -> Renewal
  {
    let name = storeName(session.id)
    let (task, mine) = flights.withLock { flights -> (Task<Renewal, Never>, Bool) in
      if let running = flights[name] { return (running, false) }
      // Unstructured on purpose: once a refresh is sent it must be stored, even if the request
      // that started it goes away.
      let task = Task { await self.renewal(of: session.id, name: name, refused: refused, with: refresher) }
      flights[name] = task
      return (task, true)
    }
    let outcome = await task.value
    if mine { _ = flights.withLock { $0.removeValue(forKey: name) } }
    return outcome
  }

  /// The store name of `id`: a keyed BLAKE2b hash, so the store never holds the id itself.
  public func storeName(_ id: SessionID) -> String {
    Sodium.base64URL(Sodium.keyedHash(id.bytes, key: key.storeNames))
  }

  /// The store's name of an account: a keyed BLAKE2b hash of the user id, never a login.
  public func accountName(_ userID: Int) -> String {
    Sodium.base64URL(Sodium.keyedHash(Array(String(userID).utf8), key: key.accounts))
  }

  /// The sealed bytes of `record` for `id` (id as associated data), for tests that inspect the store.
  func seal(_ record: SessionRecord, id: SessionID) -> [UInt8] {
    Sodium.seal(record.encoded, associated: id.bytes, key: key.records)
  }

  /// The record sealed in `sealed` for `id`, or nil (forged, moved, another key, another format).
  func open(_ sealed: [UInt8], id: SessionID) -> SessionRecord? {
    guard let plain = Sodium.open(sealed, associated: id.bytes, key: key.records) else { return nil }
    return SessionRecord(encoded: plain)
  }

  // MARK: - Renewal

  /// One renewal: read the record; if it still needs renewing, take the lock (or wait for whoever
  /// has it, then read again), refresh, and store the new pair over exactly the record read.
  private func renewal(of id: SessionID, name: String, refused: String?, with refresher: any TokenRefresher)
    async -> Renewal
  {
    // Real time, not the injected clock: this bounds a wait on another instance's renewal, whose
    // event and poll timeouts run on real time too, so a test clock that stands still cannot hang it.
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: Self.renewalWaitLimit)
    var waiter: RenewalWaiter?
    while true {
      if case .failure(let stop) = await settled(id, name, refused: refused, refresher) {
        return stop.outcome
      }
      let lock: RenewalLock?
      do {
        lock = try await store.lockRenewal(name, for: Self.renewalLockSeconds)
      } catch {
        return .unavailable
      }
      if let lock {
        let outcome = await refreshHolding(lock, id: id, name: name, refused: refused, with: refresher)
        await store.unlockRenewal(lock)
        return outcome
      }
      let left = deadline - clock.now
      guard left > .zero else { return .unavailable }
      guard let waiting = waiter else {
        // Another holder: listen for its end, then read again before waiting, so that an end between
        // the first read and the listening is not missed.
        waiter = await store.renewalWaiter(name)
        continue
      }
      await waiting.wait(timeout: min(left, Self.renewalPollInterval))
      waiter = await store.renewalWaiter(name)
    }
  }

  /// The record as stored now, when it needs a refresh from this request; else the outcome (its
  /// token is good, or was renewed meanwhile, or the session is over).
  private func settled(_ id: SessionID, _ name: String, refused: String?, _ refresher: any TokenRefresher)
    async -> Result<(sealed: [UInt8], record: SessionRecord), RenewalStop>
  {
    switch await current(id, name) {
    case .failure(let stop): return .failure(stop)
    case .success(let read):
      switch need(read.record, refused: refused) {
      case .none:
        return .failure(RenewalStop(.renewed(Session(id: id, record: read.record, csrfKey: key.csrf))))
      case .end:
        return .failure(RenewalStop(await endRefused(name, read.record, refused: refused, refresher)))
      case .refresh: return .success(read)
      }
    }
  }

  /// What a record needs: nothing (its token is good, or is not the refused one: renewed
  /// meanwhile), a refresh, or its end (expired, or refused, with nothing to renew it).
  private enum Need { case none, refresh, end }

  private func need(_ record: SessionRecord, refused: String?) -> Need {
    let verdict = policy.tokenVerdict(record, now: now())
    if let refused {
      guard record.reader.token == refused else { return .none }
      guard let expiry = record.expiry, expiry.refreshToken != nil, now() < expiry.refreshExpires else {
        return .end
      }
      return .refresh
    }
    switch verdict {
    case .use: return .none
    case .refresh: return .refresh
    case .cannotRenew: return .end
    }
  }

  /// The record as stored now, or the outcome when there is none to renew.
  private func current(_ id: SessionID, _ name: String) async -> Result<
    (sealed: [UInt8], record: SessionRecord), RenewalStop
  > {
    let sealed: [UInt8]?
    do {
      sealed = try await store.load(name)
    } catch {
      return .failure(RenewalStop(.unavailable))
    }
    guard let sealed, let record = open(sealed, id: id), case .valid = policy.verdict(record, now: now())
    else {
      return .failure(RenewalStop(.ended))
    }
    return .success((sealed, record))
  }

  /// Under the lock: read again (another holder may have just finished), refresh once, store.
  private func refreshHolding(
    _ lock: RenewalLock, id: SessionID, name: String, refused: String?, with refresher: any TokenRefresher
  ) async -> Renewal {
    var read: (sealed: [UInt8], record: SessionRecord)
    switch await settled(id, name, refused: refused, refresher) {
    case .failure(let stop): return stop.outcome
    case .success(let found): read = found
    }
    guard let refreshToken = read.record.expiry?.refreshToken else {
      return await endRefused(name, read.record, refused: refused, refresher)
    }
    let grant: OAuthGrant
    do throws(OAuthError) {
      grant = try await refresher.refresh(refreshToken)
    } catch {
      guard error == .badRefreshToken else { return .unavailable }
      // Refused: unless the record moved on meanwhile (a lapsed lock), the session is over.
      if case .success(let now) = await current(id, name), now.record.expiry?.refreshToken != refreshToken {
        return .renewed(Session(id: id, record: now.record, csrfKey: key.csrf))
      }
      return await endRefused(name, read.record, refused: refused, refresher)
    }
    let time = now()
    let expiry = grant.expiresIn.map {
      TokenExpiry(
        grantedAt: time, expiresIn: $0, refreshToken: grant.refreshToken,
        refreshExpiresIn: grant.refreshTokenExpiresIn)
    }
    // Store the new pair over exactly what was read; a touch in between is read again and kept.
    for _ in 0..<5 {
      var record = read.record
      record.reader.token = grant.accessToken
      record.expiry = expiry
      let stored: Bool
      do {
        stored = try await store.replace(
          name, expected: read.sealed, with: seal(record, id: id), keepFor: policy.keepFor(record, now: time))
      } catch {
        // The new pair cannot be kept, and the old one no longer works: nobody may use either.
        refresher.revokeInBackground(grant.accessToken)
        return .unavailable
      }
      if stored { return .renewed(Session(id: id, record: record, csrfKey: key.csrf)) }
      switch await current(id, name) {
      case .success(let again): read = again
      case .failure(let stop):
        // Signed out while the refresh was under way: the new token belongs to nobody.
        refresher.revokeInBackground(grant.accessToken)
        return stop.outcome
      }
    }
    refresher.revokeInBackground(grant.accessToken)
    return .unavailable
  }

  /// Ends a session whose token cannot be renewed. Its access token is revoked when it may still
  /// work: not the one GitHub just refused, and not past its expiry.
  private func endRefused(
    _ name: String, _ record: SessionRecord, refused: String?, _ refresher: any TokenRefresher
  ) async -> Renewal {
    do {
      let removed = try await store.delete(name)
      let alive = refused == nil && (record.expiry.map { now() < $0.accessExpires } ?? true)
      if removed, alive { refresher.revokeInBackground(record.reader.token) }
    } catch {
      return .unavailable
    }
    return .refused
  }

  /// A renewal's early outcome, as the failure of a read.
  private struct RenewalStop: Error {
    let outcome: Renewal
    init(_ outcome: Renewal) { self.outcome = outcome }
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
