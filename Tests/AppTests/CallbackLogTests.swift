import App
import Foundation
import HTTP
import TestSupport
import Testing

/// The sign-in callback's query carries GitHub's one-time code and the state: neither may reach a
/// log line, in text or in JSON, however the callback's path is spelt.
@Suite("Logs: the callback's query is never logged", .serialized, .timeLimit(.minutes(6)))
struct CallbackLogTests {
  @Test(arguments: [LogFormat.text, LogFormat.json])
  func theCallbacksCodeAndStateAreNeverLogged(_ format: LogFormat) async throws {
    try await AppHarness.with(live: true, configure: { $0.logFormat = format }) { h in
      let targets = [
        "/login/callback?code=c0de5ecret&state=st4te5ecret",
        "//login/callback?state=st4te5ecret&code=c0de5ecret",
        "/login/callback/?code=c0de5ecret", "/login/callback?error=access_denied&state=st4te5ecret",
      ]
      for target in targets { _ = try await h.get(target) }
      _ = try await h.get("/?q=kept-in-the-log")
      expectTrue(await eventually { h.logs.all.count >= targets.count + 1 })
      let lines = h.logs.all
      for line in lines {
        expectTrue(!line.contains("code=") && !line.contains("state=") && !line.contains("5ecret"), "\(line)")
      }
      expectEqual(
        lines.filter { $0.contains("login/callback") && $0.contains("?[redacted]") }.count, targets.count)
      expectTrue(lines.contains { $0.contains("q=kept-in-the-log") }, "other queries are logged as they came")
    }
  }
}
