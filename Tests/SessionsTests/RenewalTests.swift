import Credentials
import GitHub
import Synchronization
import TestSupport
import Testing

@testable import Sessions

/// Renewing expiring tokens in process: the pure verdict, one refresh however many requests ask, the
/// outcomes GitHub can give, and the races a rotation must survive.
@Suite("Sessions: renewing expiring tokens", .timeLimit(.minutes(2)))
struct RenewalTests {
  /// A book on `clock` (over `store` when given), and a session signed in with `authority`'s grant.
  static func signedIn(
    _ clock: ManualClock, _ authority: FakeTokenAuthority, store: MemorySessionStore? = nil,
    key: SessionKey = .random()
  ) async throws -> (SessionBook, MemorySessionStore, Session) {
    let store = store ?? MemorySessionStore(time: clock.time)
    let book = SessionBook(key: key, store: store, time: clock.time)
    let grant = authority.grant()
    let session = try await book.create(
      reader: ReaderCredential(login: "mona", userID: 7, token: grant.accessToken, access: .publicOnly),
      expiry: TokenExpiry(
        grantedAt: clock.now, expiresIn: grant.expiresIn ?? 0, refreshToken: grant.refreshToken,
        refreshExpiresIn: grant.refreshTokenExpiresIn))
    return (book, store, session)
  }

  static func token(_ book: SessionBook, _ session: Session) async -> String? {
    await book.lookup(cookieValue: session.id.cookieValue[...]).session?.record.reader.token
  }

  @Test func theVerdictRefreshesInTheLastFiveMinutesAndEndsWhenNothingCanRenew() {
    let policy = SessionPolicy()
    let reader = ReaderCredential(login: "a", userID: 1, token: "ghu_x", access: .publicOnly)
    var record = SessionRecord(reader: reader, created: 0, lastSeen: 0)
    expectEqual(policy.tokenVerdict(record, now: 1_000_000), .use)  // an OAuth app's token
    record.expiry = TokenExpiry(accessExpires: 28_800, refreshToken: "ghr_y", refreshExpires: 15_897_600)
    expectEqual(policy.tokenVerdict(record, now: 28_499), .use)
    expectEqual(policy.tokenVerdict(record, now: 28_500), .refresh)
    expectEqual(policy.tokenVerdict(record, now: 40_000), .refresh)
    expectEqual(policy.tokenVerdict(record, now: 15_897_600), .cannotRenew)
    // No refresh token: used until it expires, then over.
    record.expiry?.refreshToken = nil
    expectEqual(policy.tokenVerdict(record, now: 28_799), .use)
    expectEqual(policy.tokenVerdict(record, now: 28_800), .cannotRenew)
    // Outside numbers saturate rather than trap.
    record.expiry = TokenExpiry(accessExpires: .min, refreshToken: "ghr_y", refreshExpires: .max)
    expectEqual(policy.tokenVerdict(record, now: 0), .refresh)
    expectEqual(
      TokenExpiry(grantedAt: .max, expiresIn: .max, refreshToken: nil, refreshExpiresIn: .max).accessExpires,
      .max)
  }

  @Test func aRenewalStoresTheRotatedPairAndTheNextLookupUsesIt() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let (book, _, session) = try await Self.signedIn(clock, authority)
    clock.advance(28_600)
    let found = try #require(await book.lookup(cookieValue: session.id.cookieValue[...]).session)
    expectEqual(book.policy.tokenVerdict(found.record, now: clock.now), .refresh)
    guard case .renewed(let renewed) = await book.renew(found, refused: nil, with: authority) else {
      Issue.record("not renewed")
      return
    }
    expectEqual(renewed.record.reader.token, "ghu_access2")
    expectEqual(renewed.record.expiry?.refreshToken, "ghr_refresh2")
    expectEqual(renewed.record.expiry?.accessExpires, clock.now + 28_800)
    await expectEqual(Self.token(book, session), "ghu_access2")
    expectTrue(authority.refreshes == 1 && authority.replays == 0)
    // Renewing again right away finds nothing to do.
    let again = try #require(await book.lookup(cookieValue: session.id.cookieValue[...]).session)
    guard case .renewed = await book.renew(again, refused: nil, with: authority) else {
      Issue.record("a fresh token was not left alone")
      return
    }
    expectEqual(authority.refreshes, 1)
  }

  @Test func twentyRequestsOnThreeInstancesRefreshOnce() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let key = SessionKey.random()
    let (first, store, session) = try await Self.signedIn(clock, authority, key: key)
    // Three books over one store: three instances that share it.
    let books = [first] + (0..<2).map { _ in SessionBook(key: key, store: store, time: clock.time) }
    clock.advance(28_800)
    // The refresh is held until every request has asked, so they must wait for it.
    authority.close()
    let outcomes = await authority.whileHeld(20) { index in
      let book = books[index % 3]
      guard let found = await book.lookup(cookieValue: session.id.cookieValue[...]).session else {
        return nil
      }
      // Half ask before use, half after GitHub refused the old token.
      let refused = index.isMultiple(of: 2) ? nil : found.record.reader.token
      guard case .renewed(let renewed) = await book.renew(found, refused: refused, with: authority) else {
        return nil
      }
      return renewed.record.reader.token
    }
    expectEqual(outcomes.count, 20)
    expectTrue(outcomes.allSatisfy { $0 == "ghu_access2" }, "\(outcomes)")
    expectTrue(authority.refreshes == 1 && authority.replays == 0)
    await expectEqual(Self.token(books[2], session), "ghu_access2")
  }

  @Test func aRefusedRefreshEndsTheSessionAndARenewedTokenIsNotRenewedTwice() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let (book, _, session) = try await Self.signedIn(clock, authority)
    // GitHub refused "ghu_old", but the record already holds another token: nothing to refresh.
    guard case .renewed = await book.renew(session, refused: "ghu_old", with: authority) else {
      Issue.record("a token renewed meanwhile was refreshed again")
      return
    }
    expectEqual(authority.refreshes, 0)
    authority.failNext(.badRefreshToken)
    guard case .refused = await book.renew(session, refused: session.record.reader.token, with: authority)
    else {
      Issue.record("a refused refresh kept the session")
      return
    }
    await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended)
    // GitHub refused that token already: nothing is revoked.
    expectTrue(authority.revoked.isEmpty)
  }

  @Test func anExpiredRefreshTokenEndsTheSessionWithoutCallingGitHub() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    // Timeouts long enough that the session itself outlives the refresh token's six months.
    var policy = SessionPolicy()
    policy.idle = 400 * 86_400
    policy.absolute = 400 * 86_400
    let patient = SessionBook(
      key: .random(), store: MemorySessionStore(time: clock.time), policy: policy, time: clock.time)
    let grant = authority.grant()
    let session = try await patient.create(
      reader: ReaderCredential(login: "mona", userID: 7, token: grant.accessToken, access: .publicOnly),
      expiry: TokenExpiry(
        grantedAt: clock.now, expiresIn: 28_800, refreshToken: grant.refreshToken,
        refreshExpiresIn: 15_897_600))
    clock.advance(15_897_600)
    let found = try #require(await patient.lookup(cookieValue: session.id.cookieValue[...]).session)
    expectEqual(patient.policy.tokenVerdict(found.record, now: clock.now), .cannotRenew)
    guard case .refused = await patient.renew(found, refused: nil, with: authority) else {
      Issue.record("an unrenewable session was kept")
      return
    }
    expectEqual(authority.refreshes, 0)
    await expectEqual(patient.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended)
  }

  @Test func gitHubUnreachableKeepsTheSessionAndItsToken() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let (book, store, session) = try await Self.signedIn(clock, authority)
    clock.advance(28_700)
    authority.failNext(.unavailable("GitHub could not be reached"))
    guard case .unavailable = await book.renew(session, refused: nil, with: authority) else {
      Issue.record("an outage was not reported as such")
      return
    }
    await expectEqual(Self.token(book, session), session.record.reader.token)
    // The store down is the same: nothing ends.
    store.setAvailable(false)
    guard case .unavailable = await book.renew(session, refused: nil, with: authority) else {
      Issue.record("a store outage was not reported as such")
      return
    }
    store.setAvailable(true)
    guard case .renewed(let renewed) = await book.renew(session, refused: nil, with: authority) else {
      Issue.record("not renewed once GitHub was back")
      return
    }
    expectTrue(renewed.record.reader.token == "ghu_access2" && authority.replays == 0)
  }

  /// A reader signed in eight hours ago (their token due), with GitHub holding the next refresh.
  static func dueWithRefreshHeld() async throws -> (ManualClock, FakeTokenAuthority, SessionBook, Session) {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let (book, _, session) = try await Self.signedIn(clock, authority)
    clock.advance(28_800)
    authority.close()
    return (clock, authority, book, session)
  }

  @Test func aSignOutDuringARefreshRevokesTheNewTokenAndStaysSignedOut() async throws {
    let (_, authority, book, session) = try await Self.dueWithRefreshHeld()
    async let outcome = book.renew(session, refused: nil, with: authority)
    await authority.untilHeld()
    expectTrue(try await book.end(session.id))
    authority.open()
    guard case .ended = await outcome else {
      Issue.record("a renewal after a sign-out did not see it")
      return
    }
    await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended)
    expectEqual(authority.revoked, ["ghu_access2"])
  }

  @Test func aTouchDuringARefreshKeepsTheRotatedToken() async throws {
    let (clock, authority, book, session) = try await Self.dueWithRefreshHeld()
    async let outcome = book.renew(session, refused: nil, with: authority)
    await authority.untilHeld()
    // A lookup an hour after the last touch rewrites the record while the refresh is out.
    await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .found)
    authority.open()
    guard case .renewed(let renewed) = await outcome else {
      Issue.record("not renewed")
      return
    }
    expectEqual(renewed.record.lastSeen, clock.now)
    // The touch racing the refresh did not bring back the old token, nor lose the touch.
    let stored = try #require(await book.lookup(cookieValue: session.id.cookieValue[...]).session)
    expectTrue(stored.record.reader.token == "ghu_access2" && stored.record.lastSeen == clock.now)
  }

  @Test func anIdleExpiredSessionIsRevokedOnceWhenNoticed() async throws {
    let clock = ManualClock()
    let authority = FakeTokenAuthority()
    let (book, _, session) = try await Self.signedIn(clock, authority)
    clock.advance(8 * 86_400)
    let lookups = await withTaskGroup(of: SessionBook.Lookup.self) { group in
      for _ in 0..<10 { group.addTask { await book.lookup(cookieValue: session.id.cookieValue[...]) } }
      var all: [SessionBook.Lookup] = []
      for await lookup in group { all.append(lookup) }
      return all
    }
    let expired = lookups.compactMap { lookup -> StaleToken? in
      if case .expired(let stale) = lookup { return stale }
      return nil
    }
    expectEqual(expired.count, 1, "one lookup ends and revokes it")
    expectEqual(expired.first?.token, session.record.reader.token)
    expectTrue(!"\(expired)".contains(session.record.reader.token))
    expectEqual(lookups.filter { $0.outcome == .ended }.count, 9)
  }
}
