import App
import CurlClient
import GitHubDouble
import HTTP
import TestSupport
import Testing

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// API calls and avatar fetches have separate libcurl budgets, so a stuck avatar host cannot delay search.
@Suite("Upstream budgets", .serialized)
struct UpstreamBudgetTests {
  @Test func fragmentAnswersWhileFortyAvatarFetchesHang() async throws {
    let avatarHost = AppHarness.smallDouble {
      $0.hangRate = 1
      $0.faults.hangLimit = .seconds(60)
    }
    let avatarPort = try avatarHost.start(host: "127.0.0.1", port: 0)
    defer { Task { await avatarHost.shutdown() } }
    // One transfer per budget at most, so even a single hung avatar would block a shared pool.
    try await AppHarness.with(
      double: AppHarness.smallDouble(),
      configure: {
        $0.avatarBase = "http://127.0.0.1:\(avatarPort)"
        $0.apiTransfers = 4
        $0.avatarTransfers = 4
        $0.drainTimeout = 1
      }
    ) { h in
      let avatars = Task {
        await withTaskGroup(of: Void.self) { group in
          for id in 1...40 { group.addTask { _ = try? await h.get("/avatars/\(id)?s=40") } }
        }
      }
      // Wait until the avatar host holds the hung transfers, so the budget is really taken (slowly
      // when other suites keep both cores busy; timed-out avatars are replaced by queued ones).
      let deadline = ContinuousClock.now + .seconds(30)
      while avatarHost.counters().inFlight < 4, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(avatarHost.counters().inFlight >= 4)
      let started = ContinuousClock.now
      let body = try await h.text("/fragments/results?q=language%3Apython&after=20")
      let elapsed = ContinuousClock.now - started
      #expect(HTMLScan.cards(body).count == 20)
      // A generous bound: starvation would last the avatar client's 10 s timeout at least.
      #expect(elapsed < .seconds(5), "fragment took \(elapsed) while avatars hung")
      avatars.cancel()
      await avatars.value
    }
  }

  @Test func failedTransfersAreLoggedWithCurlsTextAndNoToken() async throws {
    // A port that just closed: the connection is refused, which libcurl explains in its error buffer.
    let gone = AppHarness.smallDouble()
    let closed = try gone.start(host: "127.0.0.1", port: 0)
    await gone.shutdown()
    try await AppHarness.with(
      double: AppHarness.smallDouble(),
      configure: {
        $0.githubAPI = "http://127.0.0.1:\(closed)"
        $0.githubToken = "ghp_budgetTestSecretToken1234"
      }
    ) { h in
      let response = try await h.get("/fragments/results?q=swift&after=20")
      #expect(response.status.code == 200)
      let lines = h.logs.all.filter { $0.contains("upstream GET") }
      #expect(lines.count == 1, "\(h.logs.all)")
      #expect(lines.first?.contains("http://127.0.0.1:\(closed)/search/repositories failed") == true)
      #expect(lines.first?.contains("(curl 7: Couldn't connect to server)") == true)
      #expect(!h.logs.all.joined().contains("ghp_budgetTestSecretToken1234"))
    }
  }
}
