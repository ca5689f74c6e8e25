import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The streamed first page's work is one task: when its client leaves, the search upstream is
/// cancelled with it, and the page is still counted once.
@Suite("A client that leaves a streamed page cancels its GitHub call", .timeLimit(.minutes(2)))
struct PageCancellationTests {
  @Test func aPageAbandonedWhileItsBatchIsPendingCancelsTheHangingSearch() async throws {
    let double = AppHarness.smallDouble { $0.faults.hangRate = 1 }
    // Live: the client leaving is its connection closing, which the server turns into cancellation.
    try await AppHarness.with(double: double, live: true) { h in
      let leaving = Task { try await h.get("/?q=swift") }
      let arrived = await eventually { double.counters().inFlight == 1 }
      #expect(arrived, "the search reached the double")
      leaving.cancel()
      _ = try? await leaving.value

      _ = await eventually { !double.requestLog().filter { $0.endpoint == .search }.isEmpty }
      let log = double.requestLog().filter { $0.endpoint == .search }
      #expect(log.map(\.status) == [0], "the double saw the search end without an answer")
      var metrics = ""
      _ = await eventually {
        metrics = (try? await h.text("/metrics")) ?? ""
        return metrics.contains("route=\"page\",status=\"200\"} 1\n")
      }
      #expect(metrics.contains("reposcroll_upstream_cancelled_total 1\n"))
      #expect(
        metrics.contains("reposcroll_http_requests_total{route=\"page\",status=\"200\"} 1\n"),
        "the abandoned stream is counted once")
    }
  }
}
