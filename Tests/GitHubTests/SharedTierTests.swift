import CurlClient
import HTTP
import SharedStore
import TestSupport
import Testing

@testable import GitHub

@Suite(
  "Shared tier: values, coalescing and the ledger across instances sharing one store", .timeLimit(.minutes(3))
)
struct SharedTierTests {
  /// The instances of one deployment: a manual clock and the memory store they share, which reads it.
  struct Fleet {
    let clock: ManualClock
    let store: MemoryStore

    init(epochSeconds: Double = 1_700_000_000) {
      let clock = ManualClock(epochSeconds: epochSeconds)
      self.clock = clock
      store = MemoryStore(time: clock.time)
    }

    /// `count` clients calling GitHub through `transport`, sharing the store and the clock.
    func clients(_ count: Int, _ transport: FakeTransport) -> [GitHubClient] {
      (0..<count).map { _ in
        var configuration = GitHubConfiguration()
        configuration.apiBase = "http://127.0.0.1:9"
        configuration.avatarBase = "http://127.0.0.1:10"
        return GitHubClient(
          configuration: configuration, transport: transport, sharedStore: store, time: clock.time)
      }
    }
  }

  /// Polls until `condition` holds (no timing assertion: it gives up after many rounds).
  static func until(_ condition: () async -> Bool) async throws {
    if await !eventually(within: .seconds(30), poll: .milliseconds(1), condition) {
      Issue.record("condition never held")
    }
  }

  @Test func aPageFetchedByOneInstanceIsServedToTheOthers() async throws {
    let fleet = Fleet()
    let transport = FakeTransport { _ in Fixtures.search(ids: [1, 2, 3], headers: [("ETag", "\"p1\"")]) }
    let instances = fleet.clients(3, transport)
    for instance in instances {
      let page = try await instance.searchRepositories(SearchQuery(text: "swift"), page: 1)
      expectEqual(page.items.map(\.id), [1, 2, 3])
    }
    expectEqual(transport.callCount, 1)
    await expectEqual(instances[1].metrics().sharedHits, 1)
    expectEqual(fleet.store.keys.count, 1)

    // Expired everywhere: one instance revalidates with the shared ETag, the others take its value.
    fleet.clock.advance(61)
    transport.respond { _ in ClientResponse(status: .notModified, headers: ["ETag": "\"p1\""]) }
    let fresh = FakeTransport { _ in Fixtures.search(ids: [9]) }
    let newcomer = fleet.clients(1, fresh)[0]
    _ = try await instances[2].searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectEqual(transport.requests.last?.headers["If-None-Match"], "\"p1\"")
    try await expectEqual(
      newcomer.searchRepositories(SearchQuery(text: "swift"), page: 1).items.map(\.id), [1, 2, 3])
    expectEqual(fresh.callCount, 0)
  }

  @Test func concurrentIdenticalRequestsOnThreeInstancesMakeOneCall() async throws {
    let fleet = Fleet()
    let gate = Gate()
    let transport = FakeTransport { _ in
      await gate.wait()
      return Fixtures.search(ids: [4, 5])
    }
    let instances = fleet.clients(3, transport)
    let results = try await withThrowingTaskGroup(of: [Int].self) { group in
      for index in 0..<51 {
        group.addTask {
          try await instances[index % 3].searchRepositories(SearchQuery(text: "hot"), page: 2).items.map(\.id)
        }
      }
      try await Self.until {
        var waits = 0
        for instance in instances { waits += await instance.metrics().sharedWaits }
        return waits == 2 && transport.callCount == 1
      }
      await gate.open()
      var all: [[Int]] = []
      for try await ids in group { all.append(ids) }
      return all
    }
    expectTrue(results.count == 51 && results.allSatisfy { $0 == [4, 5] })
    expectEqual(transport.callCount, 1)
  }

  @Test func aRateLimitSeenByOneInstanceStopsTheOthers() async throws {
    let fleet = Fleet(epochSeconds: 1_000)
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"message\":\"API rate limit exceeded\"}", status: 403,
        headers: [
          ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1060"), ("x-ratelimit-resource", "search"),
        ])
    }
    let instances = fleet.clients(3, transport)
    await #expect(throws: GitHubError.self) {
      try await instances[0].searchRepositories(SearchQuery(text: "a"), page: 1)
    }
    expectEqual(transport.callCount, 1)
    for (index, instance) in instances.enumerated().dropFirst() {
      do {
        _ = try await instance.searchRepositories(SearchQuery(text: "q\(index)"), page: 1)
        Issue.record("served despite the shared block")
      } catch {
        expectEqual(error, .rateLimited(resource: .search, until: 1060, secondary: false))
      }
    }
    expectEqual(transport.callCount, 1)
    // After the reset the resource is called again.
    fleet.clock.advance(61)
    transport.respond { _ in Fixtures.search(ids: [1]) }
    _ = try await instances[2].searchRepositories(SearchQuery(text: "later"), page: 1)
    expectEqual(transport.callCount, 2)
  }

  @Test func theSharedLedgerCountsEveryInstancesCalls() async throws {
    let fleet = Fleet(epochSeconds: 1_000)
    let transport = FakeTransport { _ in
      Fixtures.search(
        ids: [1],
        headers: [("x-ratelimit-limit", "3"), ("x-ratelimit-remaining", "2"), ("x-ratelimit-reset", "1060")])
    }
    let instances = fleet.clients(2, transport)
    // The first answer says two calls are left; one by each instance spends them.
    _ = try await instances[0].searchRepositories(SearchQuery(text: "a"), page: 1)
    _ = try await instances[1].searchRepositories(SearchQuery(text: "b"), page: 1)
    _ = try await instances[0].searchRepositories(SearchQuery(text: "c"), page: 1)
    await #expect(throws: GitHubError.self) {
      try await instances[1].searchRepositories(SearchQuery(text: "d"), page: 1)
    }
    expectEqual(transport.callCount, 3)
  }

  @Test func malformedAndForeignSharedValuesAreMisses() async throws {
    let fleet = Fleet()
    let transport = FakeTransport { request in
      request.url.contains("/search/") ? Fixtures.search(ids: [7]) : Fixtures.response(Fixtures.historyJSON)
    }
    let instance = fleet.clients(1, transport)[0]
    let url = try instance.searchURL(SearchQuery(text: "planted"), page: 1, perPage: 100)
    let history =
      PayloadCodec.encode(
        SharedEntry(
          payload: StarHistory(weeks: []), etag: nil, expires: fleet.clock.seconds + 1_000,
          storedAt: fleet.clock.seconds)
      )
      ?? []
    for planted in [Array("not ours".utf8), [], history, Array(repeating: 0xFF, count: 4_096)] {
      fleet.store.plant(planted, for: url)
      let page = try await instance.searchRepositories(SearchQuery(text: "planted"), page: 1, reload: true)
      expectEqual(page.items.map(\.id), [7])
    }
    expectEqual(transport.callCount, 4)
    expectTrue(await instance.metrics().sharedRejected >= 4)
  }

  @Test func anUnavailableStoreLeavesEachInstanceOnItsOwnCache() async throws {
    let fleet = Fleet()
    fleet.store.setAvailable(false)
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let instances = fleet.clients(2, transport)
    for instance in instances + instances {
      _ = try await instance.searchRepositories(SearchQuery(text: "x"), page: 1)
    }
    expectEqual(transport.callCount, 2)
    fleet.store.setAvailable(true)
    let third = fleet.clients(1, transport)[0]
    _ = try await instances[0].searchRepositories(SearchQuery(text: "y"), page: 1)
    _ = try await third.searchRepositories(SearchQuery(text: "y"), page: 1)
    expectEqual(transport.callCount, 3)
  }

  @Test func aDeadLockHolderIsTakenOverAfterTheLockExpires() async throws {
    let fleet = Fleet()
    let instance = fleet.clients(1, FakeTransport { _ in Fixtures.search(ids: [3]) })[0]
    let url = try instance.searchURL(SearchQuery(text: "orphan"), page: 1, perPage: 100)
    // A holder that died without unlocking (locks are named by the key's hash).
    guard case .acquired = await fleet.store.lock(GitHubState.lockName(url), for: 5) else {
      Issue.record("lock not taken")
      return
    }
    async let page = instance.searchRepositories(SearchQuery(text: "orphan"), page: 1)
    try await Self.until { await instance.metrics().sharedWaits == 1 }
    fleet.clock.advance(6)
    try await expectEqual(page.items.map(\.id), [3])
  }

  @Test func aReloadRefetchesDespiteAFreshSharedValueAndShareTheNewOne() async throws {
    let fleet = Fleet()
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let instances = fleet.clients(2, transport)
    _ = try await instances[0].searchRepositories(SearchQuery(text: "r"), page: 1)
    transport.respond { _ in Fixtures.search(ids: [2]) }
    let reloaded = try await instances[1].searchRepositories(SearchQuery(text: "r"), page: 1, reload: true)
    expectEqual(reloaded.items.map(\.id), [2])
    expectEqual(transport.callCount, 2)
    let third = fleet.clients(1, transport)[0]
    try await expectEqual(third.searchRepositories(SearchQuery(text: "r"), page: 1).items.map(\.id), [2])
    expectEqual(transport.callCount, 2)
  }

  @Test func anUpstreamFailureServesTheExpiredSharedValueStale() async throws {
    let fleet = Fleet()
    let transport = FakeTransport { _ in Fixtures.search(ids: [5]) }
    _ = try await fleet.clients(1, transport)[0].searchRepositories(
      SearchQuery(text: "s"), page: 1)
    fleet.clock.advance(120)
    transport.respond { _ in throw ClientError.timedOut }
    let other = fleet.clients(1, transport)[0]
    let page = try await other.searchRepositories(SearchQuery(text: "s"), page: 1)
    expectTrue(page.items.map(\.id) == [5] && page.isStale)
  }
}
