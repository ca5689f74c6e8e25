import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Rate limits", .timeLimit(.minutes(3)))
struct RateLimitTests {
  static func limitHeaders(remaining: Int, reset: Int, resource: String = "search") -> [(String, String)] {
    [
      ("x-ratelimit-limit", "30"), ("x-ratelimit-remaining", String(remaining)),
      ("x-ratelimit-reset", String(reset)), ("x-ratelimit-used", String(30 - remaining)),
      ("x-ratelimit-resource", resource),
    ]
  }

  @Test func exhaustedResourceMakesNoCallsUntilReset() async throws {
    let clock = ManualClock(epochSeconds: 10_000)
    let transport = FakeTransport { _ in
      Fixtures.search(ids: [1], headers: RateLimitTests.limitHeaders(remaining: 0, reset: 10_100))
    }
    let client = CachingTests.client(transport, clock: clock)
    _ = try await client.searchRepositories(SearchQuery(text: "q0"), page: 1)
    for i in 1...5 {
      await #expect(throws: GitHubError.rateLimited(resource: .search, until: 10_100, secondary: false)) {
        _ = try await client.searchRepositories(SearchQuery(text: "q\(i)"), page: 1)
      }
      clock.advance(10)
    }
    expectEqual(transport.callCount, 1)
    await expectEqual(client.metrics().rateLimitedLocally, 5)
    // Another resource is unaffected.
    transport.respond { _ in Fixtures.response(Fixtures.historyJSON) }
    try await expectEqual(client.starHistory(owner: "a", repo: "b").weeks.count, 2)
    expectEqual(transport.callCount, 2)
    // After the reset, calls resume.
    clock.advance(60)
    transport.respond { _ in
      Fixtures.search(ids: [2], headers: RateLimitTests.limitHeaders(remaining: 29, reset: 10_160))
    }
    let page = try await client.searchRepositories(SearchQuery(text: "q9"), page: 1)
    expectEqual(page.items.map(\.id), [2])
    expectEqual(transport.callCount, 3)
    let search = await client.rateLimitSnapshots().first { $0.resource == .search }
    expectEqual(search, RateLimitSnapshot(resource: .search, limit: 30, remaining: 29, reset: 10_160))
  }

  @Test(arguments: [403, 429])
  func primaryLimitResponseBlocksUntilReset(status: Int) async throws {
    let clock = ManualClock(epochSeconds: 5_000)
    let transport = FakeTransport { _ in
      Fixtures.response(
        "{\"message\":\"API rate limit exceeded for 1.2.3.4.\"}", status: status,
        headers: RateLimitTests.limitHeaders(remaining: 0, reset: 5_300, resource: "core"))
    }
    let client = CachingTests.client(transport, clock: clock)
    let expected = GitHubError.rateLimited(resource: .core, until: 5_300, secondary: false)
    await #expect(throws: expected) { _ = try await client.starHistory(owner: "a", repo: "b") }
    await #expect(throws: expected) { _ = try await client.starHistory(owner: "c", repo: "d") }
    expectEqual(transport.callCount, 1)
  }

  @Test(arguments: [
    (403, "You have exceeded a secondary rate limit. Please wait a few minutes.", nil as Int?, 60),
    (403, "whatever", 30, 30),
    (429, "Too many requests", 120, 120),
    (429, "Too many requests", nil, 60),
  ])
  func secondaryLimits(status: Int, message: String, retryAfter: Int?, wait: Int) async throws {
    let clock = ManualClock(epochSeconds: 7_000)
    var headers: [(String, String)] = [("x-ratelimit-remaining", "12"), ("x-ratelimit-reset", "9000")]
    if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
    let refusal = Fixtures.response("{\"message\":\"\(message)\"}", status: status, headers: headers)
    let transport = FakeTransport { _ in refusal }
    let client = CachingTests.client(transport, clock: clock)
    let expected = GitHubError.rateLimited(resource: .search, until: 7_000 + wait, secondary: true)
    await #expect(throws: expected) {
      _ = try await client.searchRepositories(SearchQuery(text: "a"), page: 1)
    }
    clock.advance(Double(wait) - 1)
    await #expect(throws: expected) {
      _ = try await client.searchRepositories(SearchQuery(text: "b"), page: 1)
    }
    expectEqual(transport.callCount, 1)
    clock.advance(1)
    transport.respond { _ in Fixtures.search(ids: [1]) }
    _ = try await client.searchRepositories(SearchQuery(text: "c"), page: 1)
    expectEqual(transport.callCount, 2)
  }

  @Test func inFlightRequestsAreReservedAgainstRemaining() async throws {
    let clock = ManualClock(epochSeconds: 100)
    let transport = FakeTransport { _ in
      Fixtures.search(ids: [1], headers: RateLimitTests.limitHeaders(remaining: 1, reset: 1_000))
    }
    let client = CachingTests.client(transport, clock: clock)
    _ = try await client.searchRepositories(SearchQuery(text: "a"), page: 1)  // remaining 1
    _ = try await client.searchRepositories(SearchQuery(text: "b"), page: 1)  // reserves the last one
    await #expect(throws: GitHubError.rateLimited(resource: .search, until: 1_000, secondary: false)) {
      _ = try await client.searchRepositories(SearchQuery(text: "c"), page: 1)
    }
    expectEqual(transport.callCount, 2)
  }

  @Test func otherStatusesMapToTypedErrors() async throws {
    let cases: [(ClientResponse, GitHubError)] = [
      (Fixtures.response("{\"message\":\"Not Found\"}", status: 404), .notFound),
      (
        Fixtures.response("{\"message\":\"Resource not accessible\"}", status: 403),
        .forbidden("Resource not accessible")
      ),
      (Fixtures.response("{\"message\":\"Bad credentials\"}", status: 401), .forbidden("Bad credentials")),
      (
        Fixtures.response("{\"message\":\"Only the first 1000 search results are available\"}", status: 422),
        .validation("Only the first 1000 search results are available")
      ),
      (Fixtures.response("oops", status: 500), .upstream(status: 500)),
      (Fixtures.response("", status: 301, headers: [("Location", "https://x")]), .upstream(status: 301)),
      (
        Fixtures.response("{\"total_count\":1,\"itemz\":[{\"id\":1}]}"),
        .decoding("missing items at top level")
      ),
      (Fixtures.response("{not json"), .decoding("invalid JSON at top level")),
    ]
    for (response, expected) in cases {
      let transport = FakeTransport { _ in response }
      let client = CachingTests.client(transport, clock: ManualClock(epochSeconds: 1_700_000_000))
      await #expect(throws: expected) {
        _ = try await client.searchRepositories(SearchQuery(text: "x"), page: 1)
      }
    }
  }

  @Test func rateLimitHeaderParsing() {
    let headers: HTTPHeaders = [
      "X-RateLimit-Limit": " 5000 ", "x-ratelimit-remaining": "4999", "x-ratelimit-reset": "1700000000",
      "x-ratelimit-used": "1", "X-RateLimit-Resource": "Core", "Retry-After": "30",
    ]
    expectEqual(
      RateLimitHeaders.parse(headers),
      RateLimitHeaders(
        limit: 5000, remaining: 4999, reset: 1_700_000_000, used: 1, resource: .core, retryAfter: 30))
    let hostile: HTTPHeaders = [
      "x-ratelimit-limit": "-1", "x-ratelimit-remaining": "99999999999999999999999",
      "x-ratelimit-reset": "1e9",
      "x-ratelimit-resource": "core<script>", "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT",
    ]
    expectEqual(RateLimitHeaders.parse(hostile), nil)
    expectEqual(RateLimitHeaders.parse([:]), nil)
    expectEqual(RateLimitHeaders.parse(["x-ratelimit-remaining": "0"]), RateLimitHeaders(remaining: 0))
  }

  @Test func aBucketThisClientDoesNotKnowIsKeptByName() {
    let parsed = RateLimitHeaders.parse(["x-ratelimit-remaining": "9", "x-ratelimit-resource": "Code_Search"])
    expectEqual(parsed?.resource, .other("code_search"))
    expectEqual(RateLimitResource(name: "search"), .search)
    expectEqual(RateLimitResource(name: "core"), .core)
    expectEqual(RateLimitResource.other("code_search").name, "code_search")
    var ledger = RateLimitLedger()
    let unknown = RateLimitResource.other("code_search")
    _ = ledger.block(unknown, until: 2_000, secondary: false, now: 1_000)
    expectEqual(
      ledger.refusal(unknown, now: 1_000), .rateLimited(resource: unknown, until: 2_000, secondary: false))
    expectEqual(ledger.refusal(.search, now: 1_000), nil)
    expectEqual(ledger.snapshots.map(\.resource), [unknown])
  }
}
