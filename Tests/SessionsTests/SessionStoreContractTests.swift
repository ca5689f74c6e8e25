import Credentials
import Foundation
import GitHub
import Redis
import Synchronization
import TestSupport
import Testing

@testable import Sessions

/// What every session store must hold to, checked on the memory store and on a real redis-server:
/// a sign-out racing lookups never leaves a live session, one account cannot push another out, a
/// full store refuses new sign-ins, and renewals across instances refresh once.
@Suite("Session stores: races, caps and renewal", .serialized, .timeLimit(.minutes(5)))
struct SessionStoreContractTests {
  enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case memory, redis
    var testDescription: String { rawValue }
  }

  /// A store of `backend` on `clock`, and what to stop afterwards. Each call is a fresh store (a
  /// redis-server of its own); `instances` stores share it, as instances do.
  static func stores(_ backend: Backend, _ clock: ManualClock, instances: Int = 1) async throws -> (
    [any SessionStore], @Sendable () async -> Void
  ) {
    switch backend {
    case .memory:
      let store = YieldingStore(MemorySessionStore(time: clock.time))
      return (Array(repeating: store, count: instances), {})
    case .redis:
      let server = try await RedisServerProcess()
      var configuration = try RedisConfiguration(url: server.url())
      configuration.commandTimeout = .seconds(5)
      var made: [RedisSessionStore] = []
      for _ in 0..<instances {
        // Redis expires keys by its own clock; scores follow the test's, started at the real now.
        made.append(
          try RedisSessionStore(configuration: configuration, time: clock.withRealMonotonic, log: { _ in }))
      }
      let stores = made
      return (
        stores,
        {
          for store in stores { store.shutdown() }; await server.stop()
        }
      )
    }
  }

  /// A clock at the real time, so Redis's own expiry and the book's agree.
  static func clock() -> ManualClock { ManualClock(epochSeconds: Date().timeIntervalSince1970.rounded()) }

  static func reader(_ id: Int, token: String = "gho_token") -> ReaderCredential {
    ReaderCredential(login: "reader\(id)", userID: id, token: token, access: .publicOnly)
  }

  @Test(arguments: Backend.allCases)
  func aSignOutRacingLookupsNeverLeavesALiveSession(_ backend: Backend) async throws {
    let clock = Self.clock()
    let (stores, stop) = try await Self.stores(backend, clock)
    let book = SessionBook(key: .random(), store: stores[0], time: clock.time)
    var survivors = 0
    for round in 0..<1000 {
      let session = try await book.create(reader: Self.reader(round))
      // Every lookup now wants to touch the record (an hour since the last).
      clock.advance(3601)
      let cookie = session.id.cookieValue
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 { group.addTask { _ = await book.lookup(cookieValue: cookie[...]) } }
        group.addTask { _ = try? await book.end(session.id) }
        for _ in 0..<2 { group.addTask { _ = await book.lookup(cookieValue: cookie[...]) } }
      }
      if await book.lookup(cookieValue: cookie[...]).outcome != .ended { survivors += 1 }
    }
    expectEqual(survivors, 0, "\(survivors) signed-out sessions were brought back by a touch")
    await stop()
  }

  @Test(arguments: Backend.allCases)
  func oneAccountSigningIn1000TimesKeepsTenAndPushesNoOneElseOut(_ backend: Backend) async throws {
    let clock = Self.clock()
    let (stores, stop) = try await Self.stores(backend, clock)
    var policy = SessionPolicy()
    policy.maxSessions = 50
    let book = SessionBook(key: .random(), store: stores[0], policy: policy, time: clock.time)
    let other = try await book.create(reader: Self.reader(2))
    var mine: [Session] = []
    for _ in 0..<1000 { mine.append(try await book.create(reader: Self.reader(1))) }
    var live = 0
    for session in mine where await book.lookup(cookieValue: session.id.cookieValue[...]).outcome == .found {
      live += 1
    }
    expectEqual(live, 10)
    // The ten kept are the newest.
    for session in mine.suffix(10) {
      await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .found)
    }
    await expectEqual(book.lookup(cookieValue: other.id.cookieValue[...]).outcome, .found)
    await stop()
  }

  @Test(arguments: Backend.allCases)
  func aFullStoreRefusesNewSignInsAndEvictsNobody(_ backend: Backend) async throws {
    let clock = Self.clock()
    let (stores, stop) = try await Self.stores(backend, clock)
    var policy = SessionPolicy()
    policy.maxSessions = 20
    policy.sessionsPerAccount = 2
    let book = SessionBook(key: .random(), store: stores[0], policy: policy, time: clock.time)
    var sessions: [Session] = []
    for id in 0..<20 { sessions.append(try await book.create(reader: Self.reader(id % 10))) }
    await #expect(throws: SessionStoreError.full) { try await book.create(reader: Self.reader(99)) }
    for session in sessions {
      await expectEqual(book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .found)
    }
    // An account at its own cap trades its oldest for the new one; the total stays.
    _ = try await book.create(reader: Self.reader(0))
    await #expect(throws: SessionStoreError.full) { try await book.create(reader: Self.reader(99)) }
    await expectEqual(book.lookup(cookieValue: sessions[0].id.cookieValue[...]).outcome, .ended)
    await expectEqual(book.lookup(cookieValue: sessions[1].id.cookieValue[...]).outcome, .found)
    // A signed-out session makes room.
    try await book.end(sessions[1].id)
    _ = try await book.create(reader: Self.reader(99))
    await stop()
  }

  @Test func expiredSessionsMakeRoomInTheMemoryStore() async throws {
    let clock = Self.clock()
    var policy = SessionPolicy()
    policy.maxSessions = 5
    let store = MemorySessionStore(time: clock.time)
    let book = SessionBook(key: .random(), store: store, policy: policy, time: clock.time)
    for id in 0..<5 { _ = try await book.create(reader: Self.reader(id)) }
    await #expect(throws: SessionStoreError.full) { try await book.create(reader: Self.reader(5)) }
    clock.advance(policy.keepFor(SessionRecord(reader: Self.reader(0), created: 0, lastSeen: 0), now: 0))
    let fresh = try await book.create(reader: Self.reader(5))
    await expectEqual(book.lookup(cookieValue: fresh.id.cookieValue[...]).outcome, .found)
    expectEqual(store.count, 1)
  }

  @Test(arguments: Backend.allCases)
  func twentyRenewalsOnThreeInstancesRefreshOnce(_ backend: Backend) async throws {
    let clock = Self.clock()
    let (stores, stop) = try await Self.stores(backend, clock, instances: 3)
    let key = SessionKey.random()
    let books = stores.map { SessionBook(key: key, store: $0, time: clock.time) }
    let authority = FakeTokenAuthority()
    let grant = authority.grant()
    let session = try await books[0].create(
      reader: Self.reader(7, token: grant.accessToken),
      expiry: TokenExpiry(
        grantedAt: clock.now, expiresIn: 28_800, refreshToken: grant.refreshToken,
        refreshExpiresIn: 15_897_600))
    clock.advance(28_800)
    authority.close()
    let tokens = await authority.whileHeld(20) { index in
      let book = books[index % 3]
      guard let found = await book.lookup(cookieValue: session.id.cookieValue[...]).session,
        case .renewed(let renewed) = await book.renew(found, refused: grant.accessToken, with: authority)
      else { return nil }
      return renewed.record.reader.token
    }
    expectTrue(tokens.count == 20 && tokens.allSatisfy { $0 == "ghu_access2" }, "\(tokens)")
    expectTrue(authority.refreshes == 1 && authority.replays == 0)
    await stop()
  }
}

/// A store that yields before every operation, so that concurrent calls interleave at each step (the
/// memory store itself never suspends, so without this a race could only show on two cores at once).
final class YieldingStore: SessionStore {
  let base: MemorySessionStore
  init(_ base: MemorySessionStore) { self.base = base }

  func load(_ name: String) async throws(SessionStoreError) -> [UInt8]? {
    await Task.yield()
    return try await base.load(name)
  }

  func create(
    _ sealed: [UInt8], as name: String, account: String, keepFor seconds: Int, limits: SessionLimits
  )
    async throws(SessionStoreError)
  {
    await Task.yield()
    try await base.create(sealed, as: name, account: account, keepFor: seconds, limits: limits)
  }

  func replace(_ name: String, expected: [UInt8], with sealed: [UInt8], keepFor seconds: Int)
    async throws(SessionStoreError) -> Bool
  {
    await Task.yield()
    return try await base.replace(name, expected: expected, with: sealed, keepFor: seconds)
  }

  func delete(_ name: String) async throws(SessionStoreError) -> Bool {
    await Task.yield()
    return try await base.delete(name)
  }

  func lockRenewal(_ name: String, for seconds: Int) async throws(SessionStoreError) -> RenewalLock? {
    await Task.yield()
    return try await base.lockRenewal(name, for: seconds)
  }

  func unlockRenewal(_ lock: RenewalLock) async {
    await Task.yield()
    await base.unlockRenewal(lock)
  }

  func renewalWaiter(_ name: String) async -> RenewalWaiter { await base.renewalWaiter(name) }
}
