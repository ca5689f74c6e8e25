import Foundation
import Synchronization
import TestSupport
import Testing

extension BrowserSuites {
  /// Sessions are cleaned up however the body ends, and JavaScript can be switched off per session.
  @Suite("Session lifecycle", .timeLimit(.minutes(10)))
  struct SessionLifecycleTests {
    struct Deliberate: Error {}

    @Test func javaScriptOffAndCleanupAfterAThrowingBody() async throws {
      var options = BrowserSessionOptions()
      options.javaScriptEnabled = false
      let pids = Mutex<(driver: Int32, browser: Int32?)?>(nil)
      do {
        try await withBrowserSession(options: options) { session in
          pids.withLock { $0 = (session.driver.pid, session.browserPID) }
          let page = "<title>off</title><p id=p>static</p><script>document.title = 'ran'</script>"
          try await session.navigate(to: "data:text/html," + page)
          try await expectEqual(session.title(), "off", "the page's script must not run")
          let paragraph = try #require(try await session.findElement(css: "#p"))
          try await expectEqual(session.text(of: paragraph), "static")
          throw Deliberate()
        }
        Issue.record("the body's error must propagate")
      } catch is Deliberate {}
      let recorded = try #require(pids.withLock { $0 })
      expectTrue(!BrowserSession.isProcessAlive(recorded.driver), "chromedriver must be gone")
      let browser = try #require(recorded.browser, "chromedriver reports goog:processID")
      try await waitUntil("Chromium's browser process gone", timeout: .seconds(5)) {
        !BrowserSession.isProcessAlive(browser)
      }
    }
  }
}
