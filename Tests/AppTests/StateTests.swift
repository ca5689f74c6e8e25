import App
import CurlClient
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Each list state renders from the templates, in the page and in fragments.
@Suite("List states", .serialized, .timeLimit(.minutes(6)))
struct StateTests {
  @Test func anEmptyResultSaysSoWithTips() async throws {
    try await AppHarness.with { h in
      let html = try await h.text("/?q=zzqqxxnothing")
      expectTrue(HTMLScan.cards(html).isEmpty)
      expectTrue(html.contains("No repositories match “zzqqxxnothing”"))
      expectTrue(html.contains("<code>language:rust</code>"))
      expectEqual(HTMLScan.nextHref(html), nil)
      let fragment = try await h.text("/fragments/results?q=zzqqxxnothing&after=0")
      expectTrue(fragment.contains("class=\"state state-empty\""))
    }
  }

  @Test func anUpstreamFaultRendersARetryableErrorRowForTheSameCursor() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      let first = try await h.text("/?q=language%3Apython&sort=stars&order=desc")
      let next = try #require(HTMLScan.nextFragment(first))
      try await h.control(.post, "/_double/faults?rate5xx=1")
      let failed = try await h.text("/fragments/results?q=language%3Apython&sort=stars&order=desc&after=100")
      expectTrue(HTMLScan.cards(failed).isEmpty)
      expectTrue(failed.contains("class=\"state state-error\""))
      expectTrue(failed.contains("data-auto-retry"))
      expectTrue(failed.contains("Couldn’t load more repositories."))
      expectEqual(
        HTMLScan.retryFragment(failed),
        "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=100")
      expectTrue(failed.contains("href=\"/?q=language%3Apython&amp;sort=stars&amp;order=desc&amp;page=6\""))
      try await h.control(.post, "/_double/faults?rate5xx=0")
      let recovered = try await h.text(
        "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=100")
      expectEqual(HTMLScan.cards(recovered).map(\.position), Array(101...120))
      // The page's own batch stays answerable from the cache meanwhile.
      expectEqual(HTMLScan.cards(try await h.text(next)).count, 20)
    }
  }

  @Test func aCursorAtTheCapGoesOnByStarsWithoutAskingGitHubPastIt() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      let html = try await h.text("/fragments/results?q=stars%3A%3E%3D0&after=1000")
      expectEqual(HTMLScan.cards(html).map(\.position), Array(1001...1020))
      expectTrue(html.contains("data-divider>GitHub ranks only the first 1,000 by best match"))
      expectTrue(!html.contains("GitHub returns at most 1,000 results"))
      expectEqual(double.counters().calls(.search, status: 422), 0)
      // GitHub's own first 1,000 here are the most starred: one count shows it, so the continuation
      // starts below them instead of reading them again (10 pages to learn them, 1 count, and the
      // stars:0 bucket: the window that shows it and its first slice; reading them again would be 10 more).
      expectTrue(double.counters().calls(.search) <= 14)
    }
  }

  @Test func aCursorAtTheCapOfAQueryThatCannotTakeAWindowEndsTheList() async throws {
    let double = AppHarness.smallDouble()
    try await AppHarness.with(double: double) { h in
      // Too long for a window's qualifiers within GitHub's 256 characters.
      let text = HTMLScan.encode("stars:>=0" + String(repeating: " fork:false", count: 21))
      let html = try await h.text("/fragments/results?q=\(text)&after=1000")
      expectTrue(HTMLScan.cards(html).isEmpty)
      expectTrue(html.contains("GitHub returns at most 1,000 results"))
      expectTrue(html.contains("data-end=\"cap\""))
      expectTrue(!html.contains("data-auto-retry"))
      expectEqual(double.counters().calls(.search, status: 422), 0)
    }
  }

  @Test func anExhaustedRateLimitShowsTheResetTimeAndCallsNothingUntilThen() async throws {
    let double = AppHarness.smallDouble()
    // The app's clock: the reset passes when the test moves it, not after a real wait.
    let clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    try await AppHarness.with(double: double, time: clock.time) { h in
      let reset = clock.now + 3
      try await h.control(.post, "/_double/ratelimit?resource=search&remaining=0&reset=\(reset)")
      let before = h.searchCalls
      let limited = try await h.text("/?q=language%3Apython&sort=stars&order=desc")
      expectTrue(HTMLScan.cards(limited).isEmpty)
      expectTrue(limited.contains("class=\"state state-limited\""))
      expectTrue(limited.contains("GitHub’s rate limit was reached."))
      let iso = try #require(limited.firstMatch(of: #/<time datetime="([0-9T:Z-]+)">(\d\d:\d\d UTC)</time>/#))
      expectTrue(iso.1.hasSuffix("Z"))
      expectTrue(limited.contains("data-retry-in=\""))
      let afterFirst = h.searchCalls
      expectTrue(afterFirst - before <= 1, "only the call that learnt about the limit")
      for after in [0, 20, 100] {
        let again = try await h.text(
          "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=\(after)")
        expectTrue(again.contains("state-limited"))
      }
      let fragment = try await h.text("/fragments/results?q=language%3Ago&after=0")
      expectTrue(fragment.contains("state-limited"))
      expectEqual(h.searchCalls, afterFirst, "an exhausted limit makes no further upstream calls")
      // After the reset the same list loads again.
      clock.advance(4)
      try await h.control(.post, "/_double/ratelimit?resource=search&remaining=1000")
      let resumed = try await h.text("/fragments/results?q=language%3Apython&sort=stars&order=desc&after=0")
      expectEqual(HTMLScan.cards(resumed).count, 20)
      expectTrue(h.searchCalls > afterFirst)
    }
  }

  @Test func aFragmentOpenedAsANavigationRedirectsToItsFullPage() async throws {
    try await AppHarness.with { h in
      let response = try await h.get(
        "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=40",
        headers: ["Sec-Fetch-Mode": "navigate"])
      expectEqual(response.status.code, 303)
      expectEqual(response.headers["Location"], "/?q=language%3Apython&sort=stars&order=desc&page=3")
      let fetched = try await h.get(
        "/fragments/results?q=language%3Apython&sort=stars&order=desc&after=40",
        headers: ["Sec-Fetch-Mode": "cors"])
      expectEqual(fetched.status.code, 200)
      let owner = try await h.get(
        "/fragments/owners/octocat?after=20", headers: ["Sec-Fetch-Mode": "navigate"])
      expectEqual(owner.status.code, 303)
      expectEqual(owner.headers["Location"], "/owners/octocat?page=2")
    }
  }
}
