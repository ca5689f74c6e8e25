import CurlClient
import HTTP
import TestSupport
import Testing

@testable import GitHub

@Suite("Rate-limit times from upstream are bounded", .timeLimit(.minutes(3)))
struct RateLimitBoundsTests {
  static func refusal(reset: Int, remaining: Int = 0, retryAfter: Int? = nil, status: Int = 403)
    -> ClientResponse
  {
    var headers = RateLimitTests.limitHeaders(remaining: remaining, reset: reset)
    if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
    return Fixtures.response("{\"message\":\"API rate limit exceeded\"}", status: status, headers: headers)
  }

  static func search(_ client: GitHubClient, _ text: String) async -> GitHubError? {
    do {
      _ = try await client.searchRepositories(SearchQuery(text: text), page: 1)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [1_000_000_000, 253_402_300_799, 999_999_999_999_999_999])
  func aResetMoreThanAnHourAheadCountsAsAMinute(reset: Int) async throws {
    let clock = ManualClock(epochSeconds: 10_000)
    let transport = FakeTransport { _ in Self.refusal(reset: reset) }
    let client = CachingTests.client(transport, clock: clock)
    await expectEqual(
      Self.search(client, "a"), .rateLimited(resource: .search, until: 10_060, secondary: false))
    clock.advance(59)
    await expectEqual(
      Self.search(client, "b"), .rateLimited(resource: .search, until: 10_060, secondary: false))
    expectEqual(transport.callCount, 1)
    clock.advance(1)
    transport.respond { _ in Fixtures.search(ids: [1]) }
    await expectEqual(Self.search(client, "c"), nil)
  }

  @Test func aSuccessWithNothingRemainingAndAnAbsurdResetLocksForAMinuteOnly() async throws {
    let clock = ManualClock(epochSeconds: 10_000)
    let transport = FakeTransport { _ in
      Fixtures.search(ids: [1], headers: RateLimitTests.limitHeaders(remaining: 0, reset: Int(1e17)))
    }
    let client = CachingTests.client(transport, clock: clock)
    await expectEqual(Self.search(client, "a"), nil)
    await expectEqual(
      Self.search(client, "b"), .rateLimited(resource: .search, until: 10_060, secondary: false))
    clock.advance(60)
    await expectEqual(Self.search(client, "c"), nil)
    expectEqual(transport.callCount, 2)
  }

  @Test(arguments: [(30, 30), (900, 900), (901, 900), (999_999_999, 900)])
  func retryAfterCountsUpToFifteenMinutes(retryAfter: Int, wait: Int) async throws {
    let clock = ManualClock(epochSeconds: 7_000)
    let transport = FakeTransport { _ in Self.refusal(reset: 9_000, remaining: 5, retryAfter: retryAfter) }
    let client = CachingTests.client(transport, clock: clock)
    await expectEqual(
      Self.search(client, "a"), .rateLimited(resource: .search, until: 7_000 + wait, secondary: true))
  }

  @Test func aResetInThePastBacksOffShortlyAndGrowsWhileItRepeats() async throws {
    let clock = ManualClock(epochSeconds: 50_000)
    let transport = FakeTransport { _ in Self.refusal(reset: 40_000) }
    let client = CachingTests.client(transport, clock: clock)
    var waits: [Int] = []
    for attempt in 0..<7 {
      guard case .rateLimited(_, let until, _) = await Self.search(client, "q\(attempt)") else {
        Issue.record("attempt \(attempt) was not rate limited")
        return
      }
      let now = Int(clock.seconds)
      waits.append(until - now)
      // Asking before the back-off ends makes no call.
      clock.advance(Double(until - now) - 1)
      expectTrue(await Self.search(client, "early\(attempt)") != nil)
      clock.advance(1)
    }
    expectEqual(waits, [5, 10, 20, 40, 60, 60, 60])
    expectEqual(transport.callCount, 7)
    // A success ends the streak: the next stale refusal starts again at 5 s.
    transport.respond { _ in
      Fixtures.search(ids: [1], headers: RateLimitTests.limitHeaders(remaining: 3, reset: 40_000))
    }
    await expectEqual(Self.search(client, "ok"), nil)
    transport.respond { _ in Self.refusal(reset: 40_000) }
    guard case .rateLimited(_, let until, _) = await Self.search(client, "again") else {
      Issue.record("not rate limited")
      return
    }
    expectEqual(until - Int(clock.seconds), 5)
  }
}
