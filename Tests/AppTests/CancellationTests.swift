import App
import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("A client that leaves cancels its GitHub call", .timeLimit(.minutes(4)))
struct UpstreamCancellationTests {
  /// Runs `check` against a live app whose double hangs every search, once a client that asked for
  /// `path` has left while its search hung, and the double has seen that search end unanswered.
  static func afterAClientLeft(_ path: String, _ check: (AppHarness) async throws -> Void) async throws {
    let double = AppHarness.smallDouble { $0.faults.hangRate = 1 }
    // Live: the client leaving is its connection closing, which the server turns into cancellation.
    // Only that may end the search: with the default 15 s upstream timeout, a test process busy
    // enough (every AppTests test at once, on 2 cores) to take that long to pass the cancellation
    // on saw the call time out first, and count it, rightly, as unanswered (status 0).
    try await AppHarness.with(double: double, live: true, configure: { $0.upstreamTimeout = 3600 }) { h in
      let leaving = Task { try await h.get(path) }
      expectTrue(await eventually { double.counters().inFlight == 1 }, "the search reached the double")
      leaving.cancel()
      _ = try? await leaving.value

      _ = await eventually { double.requestLog().contains { $0.endpoint == .search } }
      let log = double.requestLog().filter { $0.endpoint == .search }
      expectEqual(log.map(\.status), [0], "the double saw the search end without an answer")
      try await check(h)
    }
  }

  @Test func aFragmentRequestAbandonedByItsClientCancelsTheHangingSearch() async throws {
    try await Self.afterAClientLeft("/fragments/results?q=swift&after=0") { h in
      let metrics = try await h.text("/metrics")
      expectTrue(metrics.contains("reposcroll_upstream_cancelled_total 1\n"))
      let searchCalls = metrics.split(separator: "\n").filter {
        $0.hasPrefix("reposcroll_upstream_calls_total{endpoint=\"search\"")
      }
      expectTrue(searchCalls.isEmpty, "a cancelled call has no answer to count: \(searchCalls)")
    }
  }
}
