import Credentials
import CurlClient
import Foundation
import HTTP
import Redis
import RedisSharedStore
import SharedStore
import TestSupport
import Testing

@testable import GitHub

/// Readers across instances sharing one store, in memory and on a real `redis-server`: a private
/// reader's answers are stored under the reader's name only, and each reader's ledger is shared.
@Suite("Readers across instances, in memory and on redis-server", .serialized, .timeLimit(.minutes(3)))
struct SharedReaderTests {
  enum Kind: String, CaseIterable, Sendable { case memory, redis }

  static func withStore(_ kind: Kind, _ body: (any SharedStore, ManualClock) async throws -> Void)
    async throws
  {
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    switch kind {
    case .memory:
      try await body(MemoryStore(time: clock.time), clock)
    case .redis:
      let server = try await RedisServerProcess()
      let store = try await RedisStore.connect(
        RedisConfiguration(url: server.url()), time: clock.withRealMonotonic, log: { _ in })
      try await body(store, clock)
      store.shutdown()
      await server.stop()
    }
  }

  @Test(arguments: Kind.allCases)
  func aPrivateReadersAnswerNeverLeavesItsInstance(_ kind: Kind) async throws {
    try await Self.withStore(kind) { (store: any SharedStore, clock: ManualClock) async throws in
      let transports = (0..<3).map { _ in FakeTransport { ReaderTests.byToken($0) } }
      let instances = transports.map { ReaderTests.client($0, store: store, clock: clock) }
      let query = ReaderTests.query
      try await expectEqual(
        instances[0].searchRepositories(query, page: 1, as: ReaderTests.alice).items.map(\.id),
        [
          2
        ])
      // Another instance: anonymous and Bob get the public answer from GitHub, not Alice's.
      try await expectEqual(instances[1].searchRepositories(query, page: 1).items.map(\.id), [1])
      try await expectEqual(
        instances[1].searchRepositories(query, page: 1, as: ReaderTests.bob).items.map(\.id), [1])
      expectEqual(transports[1].callCount, 1)
      // Alice on a third instance calls GitHub herself: her private answer never left the first
      // instance's memory.
      try await expectEqual(
        instances[2].searchRepositories(query, page: 1, as: ReaderTests.alice).items.map(\.id),
        [
          2
        ])
      expectEqual(transports[2].callCount, 1)
      if let memory = store as? MemoryStore {
        let keys = memory.keys
        expectEqual(keys.count, 1, "the public answer only: \(keys)")
        expectTrue(keys.allSatisfy { !$0.hasPrefix("reader:") && !$0.contains(ReaderTests.alice.token) })
      }
    }
  }

  @Test(arguments: Kind.allCases)
  func aReadersExhaustedLimitHoldsOnEveryInstanceAndOnlyForThem(_ kind: Kind) async throws {
    try await Self.withStore(kind) { (store: any SharedStore, clock: ManualClock) async throws in
      let reset = Int(clock.seconds) + 60
      let transports = (0..<2).map { _ in
        FakeTransport { request in
          let remaining = ReaderTests.bearer(request) == ReaderTests.bob.token ? 0 : 20
          return Fixtures.search(
            ids: [1], headers: RateLimitTests.limitHeaders(remaining: remaining, reset: reset))
        }
      }
      let instances = transports.map { ReaderTests.client($0, store: store, clock: clock) }
      _ = try await instances[0].searchRepositories(SearchQuery(text: "a"), page: 1, as: ReaderTests.bob)
      await #expect(throws: GitHubError.rateLimited(resource: .search, until: reset, secondary: false)) {
        try await instances[1].searchRepositories(SearchQuery(text: "b"), page: 1, as: ReaderTests.bob)
      }
      expectEqual(transports[1].callCount, 0)
      _ = try await instances[1].searchRepositories(SearchQuery(text: "b"), page: 1)
      _ = try await instances[1].searchRepositories(SearchQuery(text: "c"), page: 1, as: ReaderTests.alice)
      expectEqual(transports[1].callCount, 2)
    }
  }
}
