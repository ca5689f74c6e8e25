import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Cache, revalidation, coalescing, stale-on-error", .timeLimit(.minutes(3)))
struct CachingTests {
  static func client(
    _ transport: FakeTransport, clock: ManualClock, configure: (inout GitHubConfiguration) -> Void = { _ in }
  ) -> GitHubClient {
    var configuration = GitHubConfiguration()
    configuration.apiBase = "http://127.0.0.1:9"
    configuration.avatarBase = "http://127.0.0.1:10"
    configure(&configuration)
    return GitHubClient(configuration: configuration, transport: transport, time: clock.time)
  }

  /// A client whose search for "swift", answered with `ids`, was cached `age` seconds ago.
  static func clientAfterSearch(ids: [Int], age: Int) async throws -> (GitHubClient, FakeTransport) {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let transport = FakeTransport { _ in Fixtures.search(ids: ids) }
    let client = Self.client(transport, clock: clock)
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    clock.advance(age)
    return (client, transport)
  }

  @Test func freshSearchIsServedFromCache() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let transport = FakeTransport { _ in Fixtures.search(ids: [1, 2]) }
    let client = Self.client(transport, clock: clock)
    let first = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    clock.advance(59)
    let second = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectEqual(first.items.map(\.id), [1, 2])
    expectEqual(second.items, first.items)
    expectEqual(transport.callCount, 1)
    let metrics = await client.metrics()
    expectEqual(metrics.cacheHits, 1)
    expectEqual(metrics.cacheMisses, 1)
    expectEqual(metrics.calls(.search, status: 200), 1)
    // A different page is a different key.
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 2)
    expectEqual(transport.callCount, 2)
  }

  @Test func aCancelledCallerIsToldSoEvenWhenTheCacheHoldsTheAnswer() async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport, clock: ManualClock(epochSeconds: 1_700_000_000))
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    let task = Task { () async -> GitHubError? in
      while !Task.isCancelled { await Task.yield() }
      do {
        _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
        return nil
      } catch {
        return error as? GitHubError
      }
    }
    task.cancel()
    let outcome = await task.value
    expectEqual(outcome, .cancelled)
    await expectEqual(client.metrics().cacheHits, 0)
  }

  @Test func searchWithoutETagIsRefetchedAfterTTL() async throws {
    let (client, transport) = try await Self.clientAfterSearch(ids: [1], age: 61)
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectEqual(transport.callCount, 2)
    expectEqual(transport.requests[1].headers["If-None-Match"], nil)
  }

  @Test func reloadSkipsAFreshHit() async throws {
    let transport = FakeTransport { _ in Fixtures.search(ids: [1]) }
    let client = Self.client(transport, clock: ManualClock(epochSeconds: 1_700_000_000))
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    _ = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1, reload: true)
    expectEqual(transport.callCount, 2)
  }

  @Test func expiredHistoryIsRevalidatedWithETagAnd304CostsNoRateLimit() async throws {
    let clock = ManualClock(epochSeconds: 1_000)
    let limits: [(String, String)] = [
      ("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "4999"), ("x-ratelimit-reset", "4600"),
      ("x-ratelimit-resource", "core"),
    ]
    let transport = FakeTransport { _ in
      Fixtures.response(Fixtures.historyJSON, headers: [("ETag", "W/\"h1\"")] + limits)
    }
    let client = Self.client(transport, clock: clock)
    let first = try await client.starHistory(owner: "apple", repo: "swift")
    await expectEqual(
      client.rateLimitSnapshots(),
      [
        RateLimitSnapshot(resource: .core, limit: 5000, remaining: 4999, reset: 4600)
      ])

    transport.respond { _ in ClientResponse(status: .notModified, headers: HTTPHeaders(limits)) }
    clock.advance(601)
    let second = try await client.starHistory(owner: "apple", repo: "swift")
    expectEqual(transport.callCount, 2)
    expectEqual(transport.requests[0].headers["If-None-Match"], nil)
    expectEqual(transport.requests[1].headers["If-None-Match"], "W/\"h1\"")
    expectEqual(second.weeks, first.weeks)
    expectEqual(second.isStale, false)
    await expectEqual(client.rateLimitSnapshots().first?.remaining, 4999)

    // The 304 refreshed the entry: served from cache for another TTL.
    clock.advance(599)
    _ = try await client.starHistory(owner: "apple", repo: "swift")
    expectEqual(transport.callCount, 2)
    let metrics = await client.metrics()
    expectEqual(metrics.revalidated, 1)
    expectEqual(metrics.calls(.history, status: 304), 1)
    expectEqual(metrics.calls(.history, status: 200), 1)
  }

  @Test func fiftyConcurrentIdenticalSearchesMakeOneUpstreamCall() async throws {
    let gate = Gate()
    let transport = FakeTransport { _ in
      await gate.wait()
      return Fixtures.search(ids: [1, 2, 3])
    }
    let client = Self.client(transport, clock: ManualClock(epochSeconds: 1_700_000_000))
    let results = try await withThrowingTaskGroup(of: [Int].self) { group in
      for _ in 0..<50 {
        group.addTask {
          try await client.searchRepositories(SearchQuery(text: "hot"), page: 1).items.map(\.id)
        }
      }
      // Let every caller join before the single upstream call answers.
      let joined = await eventually(poll: .milliseconds(1)) {
        let m = await client.metrics()
        return m.coalesced + m.cacheMisses == 50
      }
      expectTrue(joined)
      await gate.open()
      var all: [[Int]] = []
      for try await ids in group { all.append(ids) }
      return all
    }
    expectEqual(results.count, 50)
    expectTrue(results.allSatisfy { $0 == [1, 2, 3] })
    expectEqual(transport.callCount, 1)
    let metrics = await client.metrics()
    expectEqual(metrics.coalesced, 49)
    expectEqual(metrics.calls(.search), 1)
  }

  @Test func reloadStillCoalesces() async throws {
    let gate = Gate()
    let transport = FakeTransport { _ in
      await gate.wait()
      return Fixtures.search(ids: [1])
    }
    let client = Self.client(transport, clock: ManualClock(epochSeconds: 1_700_000_000))
    async let a = client.searchRepositories(SearchQuery(text: "x"), page: 1, reload: true)
    async let b = client.searchRepositories(SearchQuery(text: "x"), page: 1, reload: true)
    _ = await eventually(poll: .milliseconds(1)) { await client.metrics().coalesced == 1 }
    await gate.open()
    _ = try await (a, b)
    expectEqual(transport.callCount, 1)
  }

  @Test func upstreamFailureServesAStaleEntry() async throws {
    let (client, transport) = try await Self.clientAfterSearch(ids: [9], age: 120)
    transport.respond { _ in Fixtures.response("{\"message\":\"Server Error\"}", status: 502) }
    let stale = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectTrue(stale.isStale)
    expectEqual(stale.items.map(\.id), [9])
    transport.respond { _ in throw ClientError.timedOut }
    let staleAgain = try await client.searchRepositories(SearchQuery(text: "swift"), page: 1)
    expectTrue(staleAgain.isStale)
    // Nothing cached: the typed errors come through.
    await #expect(throws: GitHubError.network("timed out")) {
      _ = try await client.searchRepositories(SearchQuery(text: "other"), page: 1)
    }
    transport.respond { _ in Fixtures.response("", status: 503) }
    await #expect(throws: GitHubError.upstream(status: 503)) {
      _ = try await client.searchRepositories(SearchQuery(text: "other"), page: 1)
    }
    let metrics = await client.metrics()
    expectEqual(metrics.staleServed, 2)
    expectEqual(metrics.calls(.search, status: 0), 2)
    expectEqual(metrics.calls(.search, status: 502), 1)
  }

  @Test func staleHistoryIsMarked() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let transport = FakeTransport { _ in Fixtures.response(Fixtures.historyJSON) }
    let client = Self.client(transport, clock: clock)
    _ = try await client.starHistory(owner: "a", repo: "b")
    clock.advance(700)
    transport.respond { _ in throw ClientError.cannotConnect("refused") }
    let history = try await client.starHistory(owner: "a", repo: "b")
    expectTrue(history.isStale)
    expectEqual(history.weeks.count, 2)
  }

  @Test func cacheStaysUnderItsByteBound() async throws {
    let clock = ManualClock(epochSeconds: 1_700_000_000)
    let transport = FakeTransport { request in
      Fixtures.search(ids: [request.url.utf8.count])
    }
    let bound = 6_000
    let client = Self.client(transport, clock: clock) { $0.cacheBytes = bound }
    for i in 0..<40 {
      _ = try await client.searchRepositories(SearchQuery(text: "query\(i)"), page: 1)
      let metrics = await client.metrics()
      expectTrue(metrics.cacheBytes <= bound)
      expectTrue(metrics.cacheBytes > 0)
    }
    let metrics = await client.metrics()
    expectTrue(metrics.cacheEntries < 40)
    // The most recent entry is still cached; the oldest was evicted.
    _ = try await client.searchRepositories(SearchQuery(text: "query39"), page: 1)
    expectEqual(transport.callCount, 40)
    _ = try await client.searchRepositories(SearchQuery(text: "query0"), page: 1)
    expectEqual(transport.callCount, 41)
  }

  @Test func lruEvictsTheLeastRecentlyUsed() {
    var cache = ResponseCache<Int>(capacity: 300)
    func entry(_ v: Int) -> ResponseCache<Int>.Entry { .init(value: v, etag: nil, expires: 0, cost: 100) }
    cache.set("a", entry(1))
    cache.set("b", entry(2))
    cache.set("c", entry(3))
    expectEqual(cache.get("a")?.value, 1)  // a is now newest
    cache.set("d", entry(4))  // evicts b
    expectTrue(cache.peek("b") == nil)
    expectEqual(cache.peek("a")?.value, 1)
    expectEqual(cache.peek("c")?.value, 3)
    expectEqual(cache.totalBytes, 300)
    cache.set("huge", .init(value: 0, etag: nil, expires: 0, cost: 301))
    expectTrue(cache.peek("huge") == nil)
    expectEqual(cache.count, 3)
    cache.set("c", .init(value: 30, etag: nil, expires: 0, cost: 250))  // replaces c, evicts a and d
    expectEqual(cache.count, 1)
    expectEqual(cache.totalBytes, 250)
    cache.remove("c")
    expectEqual(cache.totalBytes, 0)
    cache.set("e", entry(5))
    expectEqual(cache.get("e")?.value, 5)
  }
}
