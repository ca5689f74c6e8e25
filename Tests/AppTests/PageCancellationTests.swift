import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The streamed first page's work is one task: when its client leaves, the search upstream is
/// cancelled with it, and the page is still counted once.
@Suite("A client that leaves a streamed page cancels its GitHub call", .timeLimit(.minutes(4)))
struct PageCancellationTests {
  @Test func aPageAbandonedWhileItsBatchIsPendingCancelsTheHangingSearch() async throws {
    try await UpstreamCancellationTests.afterAClientLeft("/?q=swift") { h in
      var metrics = ""
      _ = await eventually {
        metrics = (try? await h.text("/metrics")) ?? ""
        return metrics.contains("route=\"page\",status=\"200\"} 1\n")
      }
      expectTrue(metrics.contains("reposcroll_upstream_cancelled_total 1\n"))
      expectTrue(
        metrics.contains("reposcroll_http_requests_total{route=\"page\",status=\"200\"} 1\n"),
        "the abandoned stream is counted once")
    }
  }
}
