import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("A client that leaves cancels its GitHub call", .timeLimit(.minutes(3)))
struct UpstreamCancellationTests {
  @Test func aFragmentRequestAbandonedByItsClientCancelsTheHangingSearch() async throws {
    let double = AppHarness.smallDouble { $0.faults.hangRate = 1 }
    // Live: the client leaving is its connection closing, which the server turns into cancellation.
    try await AppHarness.with(double: double, live: true) { h in
      let leaving = Task { try await h.get("/fragments/results?q=swift&after=0") }
      #expect(await eventually { double.counters().inFlight == 1 }, "the search reached the double")
      leaving.cancel()
      _ = try? await leaving.value

      _ = await eventually { double.requestLog().contains { $0.endpoint == .search } }
      let log = double.requestLog().filter { $0.endpoint == .search }
      #expect(log.map(\.status) == [0], "the double saw the search end without an answer")
      let metrics = try await h.text("/metrics")
      #expect(metrics.contains("reposcroll_upstream_cancelled_total 1\n"))
      let searchCalls = metrics.split(separator: "\n").filter {
        $0.hasPrefix("reposcroll_upstream_calls_total{endpoint=\"search\"")
      }
      #expect(searchCalls.isEmpty, "a cancelled call has no answer to count: \(searchCalls)")
    }
  }
}
