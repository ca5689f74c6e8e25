import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Sign in with GitHub in Chromium and WebKit against `repo-scroll --demo`, whose in-process double plays
  /// GitHub's OAuth side: click "Sign in with GitHub", authorize on the double's page, come back signed
  /// in, scroll 300 rows, pass axe, reach Sign out by keyboard and sign out.
  /// The demo double's request log (on the port its authorize page came from) must show every search
  /// made after sign-in as that reader, and none as the server.
  @Suite("Sign in with GitHub in Chromium and WebKit", .timeLimit(.minutes(8)))
  struct SignInBrowserTests {
    static let query = "q=stars%3A%3E%3D0&sort=stars&order=desc"
    static let cardCount = "document.querySelectorAll('[role=feed] article[data-repo-id]').length"
    /// Rows in the list: the document holds only the cards near the reader.
    static let rowCount = "Number(document.getElementById('results').dataset.rows || 0)"

    /// The identity of each search the double has answered, oldest first.
    static func searchIdentities(_ port: Int) async throws -> [String] {
      let reply = try await WebDriverLoopbackHTTP.exchange(
        port: port, method: "GET", path: "/_double/requests?endpoint=search", body: nil, timeout: .seconds(10)
      )
      return reply.text.matches(of: #/"identity":"([^"]*)"/#).map { String($0.1) }
    }

    /// WebKit too: on the demo's plain-http loopback URL the cookies go without `Secure` and the
    /// `__Host-` prefix, which WebKit would drop.
    @Test(arguments: [BrowserEngine.chromium, .webkit])
    func signInScrollThreeHundredRowsAndSignOut(_ engine: BrowserEngine) async throws {
      let app = try ProcessRunner.fastDemo()
      let port = try await app.waitForListeningPort()
      let base = "http://127.0.0.1:\(port)"
      do {
        // 300 cards make a heavy page: on a loaded 2-core machine axe over it, or any script while it
        // runs, can keep the renderer from answering within the default 15–30 s.
        var options = BrowserSessionOptions(engine: engine)
        options.scriptTimeout = .seconds(60)
        options.pageLoadTimeout = .seconds(60)
        options.commandTimeout = .seconds(90)
        try await withBrowserSession(options: options) { session in
          try await session.navigate(to: base + "/?" + Self.query)
          try await session.waitForScript("\(Self.cardCount) >= 20", timeout: .seconds(15))
          let signIn = try #require(try await session.findElement(css: "a.account-signin"))
          try await session.click(signIn)
          // The double's authorize page: a login field, Authorize and Cancel.
          try await session.waitForScript(
            "document.querySelector('input[name=login]')", timeout: .seconds(15))
          // The demo double serves the authorize page on its own port: its request log is read there.
          let authorize = try await session.currentURL()
          let doublePort = try #require(
            authorize.firstMatch(of: #/^http://127\.0\.0\.1:(\d+)//#).flatMap { Int($0.1) })
          let searchesBefore = try await Self.searchIdentities(doublePort).count
          // The double suggests a login of its catalog; the reader types their own over it.
          try await session.executeScript("document.querySelector('input[name=login]').value = '';")
          let login = try #require(try await session.findElement(css: "input[name=login]"))
          try await session.sendKeys("mona", to: login)
          // A WebDriver click, not a script's: the driver then waits for the navigation it starts.
          try await session.click(try #require(try await session.findElement(css: "button[value=authorize]")))
          // Back where the reader started, signed in.
          try await session.waitForScript(
            "document.querySelector('.account-login') && \(Self.cardCount) >= 20", timeout: .seconds(15))
          try await expectEqual(session.currentURL(), base + "/?" + Self.query)
          let shown = try await session.executeScript(
            "return document.querySelector('.account-login').textContent.trim();"
          ).string
          expectEqual(shown, "mona", "\(engine): the header shows \(shown ?? "nothing")")
          // The session cookie is HttpOnly: no script can read it.
          expectTrue(
            try await session.executeScript("return document.cookie;").string?.contains("session") != true)
          var rows = try await session.executeScript("return \(Self.rowCount);").int ?? 0
          while rows < 300 {
            try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
            rows =
              try await session.waitForScript(
                "\(Self.rowCount) > \(rows) && \(Self.rowCount)", timeout: .seconds(15)
              ).int ?? rows
          }
          let identities = try await Self.searchIdentities(doublePort).dropFirst(searchesBefore)
          expectTrue(identities.count >= 2, "the reader's scrolling reached GitHub: \(identities)")
          expectTrue(
            identities.allSatisfy { $0 == "mona" }, "every search after sign-in as the reader: \(identities)")
          let violations = try await AxeCore.run(in: session, source: try AxeCore.source())
          expectTrue(violations.isEmpty, "axe: \(violations)")
          // Keyboard: the sign-out button is reachable with Tab from the top of the page.
          try await session.executeScript("window.scrollTo(0, 0); document.activeElement?.blur();")
          var reached = false
          for _ in 0..<12 {
            try await session.pressKeys("\u{E004}")  // Tab
            if try await session.executeScript("return document.activeElement?.textContent?.trim();").string
              == "Sign out"
            {
              reached = true
              break
            }
          }
          expectTrue(reached, "Sign out is keyboard-reachable")
          try await session.pressKeys("\u{E007}")  // Enter submits the form
          try await session.waitForScript("document.querySelector('a.account-signin')", timeout: .seconds(15))
        }
      } catch {
        await app.terminate()
        throw error
      }
      await app.terminate()
    }
  }
}
