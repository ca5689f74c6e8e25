import CurlClient
import GitHubDouble
import HTTP
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
      var arrived = false
      for _ in 0..<5_000 where !arrived {
        arrived = double.counters().inFlight == 1
        if !arrived { try await Task.sleep(for: .milliseconds(1)) }
      }
      #expect(arrived, "the search reached the double")
      leaving.cancel()
      _ = try? await leaving.value

      var log: [DoubleRequestRecord] = []
      for _ in 0..<5_000 where log.isEmpty {
        log = double.requestLog().filter { $0.endpoint == .search }
        if log.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
      }
      #expect(log.map(\.status) == [0], "the double saw the search end without an answer")
      var metrics = ""
      for _ in 0..<5_000 where !metrics.contains("route=\"page\",status=\"200\"} 1\n") {
        metrics = try await h.text("/metrics")
        if !metrics.contains("route=\"page\",status=\"200\"} 1\n") {
          try await Task.sleep(for: .milliseconds(1))
        }
      }
      #expect(metrics.contains("reposcroll_upstream_cancelled_total 1\n"))
      #expect(
        metrics.contains("reposcroll_http_requests_total{route=\"page\",status=\"200\"} 1\n"),
        "the abandoned stream is counted once")
    }
  }
}
