import Clocks
import Foundation
import Redis
import RedisSharedStore
import Synchronization
import TestSupport
import Testing

@testable import SharedStore

/// The same behaviour asked of the in-memory store and of the Redis store on a real `redis-server`,
/// so the two cannot drift apart.
@Suite("SharedStore behaviour, in memory and on redis-server", .serialized, .timeLimit(.minutes(3)))
struct StoreBehaviourTests {
  enum Kind: String, CaseIterable, Sendable { case memory, redis, redisOverTLS }

  /// Runs `body` with a store of `kind`, then lets `seconds` pass for it: on the memory store's
  /// manual clock, or in real time for redis-server, which expires keys on its own clock.
  static func withStore(
    _ kind: Kind, _ body: (any SharedStore, _ pass: (Double) async throws -> Void) async throws -> Void
  ) async throws {
    switch kind {
    case .memory:
      let clock = ManualClock()
      try await body(MemoryStore(time: clock.time), { clock.advance($0) })
    case .redis, .redisOverTLS:
      let server = try await RedisServerProcess(kind == .redis ? .plain : .tls)
      let store = try await RedisStore.connect(
        server.configuration(), time: .system, log: { _ in })
      // Real time: Redis expires keys on its own clock.
      try await body(store, { try await Task.sleep(for: .seconds($0)) })
      store.shutdown()
      await server.stop()
    }
  }

  @Test(arguments: Kind.allCases) func valuesExpire(_ kind: Kind) async throws {
    try await Self.withStore(kind) { store, pass in
      await expectEqual(store.value(for: "k"), nil)
      await store.setValue([1, 2, 3], for: "k", keepFor: 0.2)
      await expectEqual(store.value(for: "k"), [1, 2, 3])
      try await pass(0.3)
      await expectEqual(store.value(for: "k"), nil)
    }
  }

  @Test(arguments: Kind.allCases) func aLockHasOneHolderAndExpires(_ kind: Kind) async throws {
    try await Self.withStore(kind) { store, pass in
      guard case .acquired(let token) = await store.lock("page", for: 0.3) else {
        Issue.record("first lock not acquired")
        return
      }
      await expectEqual(store.lock("page", for: 0.3), .heldElsewhere)
      // Someone else's token does not free it; the holder's does.
      await store.unlock(LockToken(key: "page", owner: "impostor"))
      await expectEqual(store.lock("page", for: 0.3), .heldElsewhere)
      await store.unlock(token)
      guard case .acquired = await store.lock("page", for: 0.2) else {
        Issue.record("lock not free after unlock")
        return
      }
      // A holder that dies never unlocks: the lock expires by itself.
      try await pass(0.3)
      guard case .acquired = await store.lock("page", for: 1) else {
        Issue.record("lock did not expire")
        return
      }
    }
  }

  @Test(arguments: Kind.allCases) func theLedgerCountsRefusesAndResets(_ kind: Kind) async throws {
    try await Self.withStore(kind) { store, pass in
      let now = 1_000.0
      await expectEqual(store.reserve("search", now: now), nil, "unknown resources are not refused")
      await store.record("search", limit: 30, remaining: 2, reset: 1_060)
      await expectEqual(store.reserve("search", now: now), nil)
      await expectEqual(store.reserve("search", now: now), nil)
      await expectEqual(store.reserve("search", now: now), LedgerRefusal(until: 1_060, secondary: false))
      await store.refund("search")
      await expectEqual(store.reserve("search", now: now), nil)
      // A stale answer of the same window cannot raise the count; a later window replaces it.
      await store.record("search", limit: 30, remaining: 9, reset: 1_060)
      await expectEqual(store.reserve("search", now: now), LedgerRefusal(until: 1_060, secondary: false))
      await expectEqual(store.reserve("search", now: 1_060), nil, "a new window has begun")
      await store.record("search", limit: 30, remaining: 29, reset: 1_120)
      await expectEqual(store.reserve("search", now: 1_061), nil)
      await store.block("search", until: 1_200, secondary: false)
      await expectEqual(store.reserve("search", now: 1_100), LedgerRefusal(until: 1_200, secondary: false))
      await store.block("core", until: 1_300, secondary: true)
      await expectEqual(store.reserve("core", now: 1_299), LedgerRefusal(until: 1_300, secondary: true))
      await expectEqual(store.reserve("core", now: 1_300), nil)
    }
  }
}
