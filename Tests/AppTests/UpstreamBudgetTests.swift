import App
import CurlClient
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Failed upstream transfers reach the log with libcurl's reason. (That a hung avatar host cannot delay
/// search is checked in HostileUpstreamTests, with the app in a process of its own: in this process the
/// other suites share the app's threads, which says nothing about the app.)
@Suite("Upstream budgets", .serialized, .timeLimit(.minutes(6)))
struct UpstreamBudgetTests {
  @Test func failedTransfersAreLoggedWithCurlsTextAndNoToken() async throws {
    // A port that just closed: the connection is refused, which libcurl explains in its error buffer.
    let gone = AppHarness.smallDouble()
    let closed = try gone.start(host: "127.0.0.1", port: 0)
    await gone.shutdown()
    try await AppHarness.with(
      double: AppHarness.smallDouble(), live: true,
      configure: {
        $0.githubAPI = "http://127.0.0.1:\(closed)"
        $0.githubToken = "ghp_budgetTestSecretToken1234"
      }
    ) { h in
      let response = try await h.get("/fragments/results?q=swift&after=20")
      expectEqual(response.status.code, 200)
      let lines = h.logs.all.filter { $0.contains("upstream GET") }
      expectEqual(lines.count, 1, "\(h.logs.all)")
      expectEqual(lines.first?.contains("http://127.0.0.1:\(closed)/search/repositories failed"), true)
      expectEqual(lines.first?.contains("(curl 7: Couldn't connect to server)"), true)
      expectTrue(!h.logs.all.joined().contains("ghp_budgetTestSecretToken1234"))
    }
  }
}
