import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// axe-core finds no violation in any state of the page, each reached against a fresh double and app.
  @Suite("Accessibility of every state", .timeLimit(.minutes(10)))
  struct AccessibilityBrowserTests {
    enum State: String, CaseIterable, Sendable {
      case landing, results, empty, firstPageError, fragmentError, searchRateLimit, coreRateLimit, end, cap
      case noScript, dark, mobile
    }

    /// A rate-limit window ending `seconds` from now.
    private static func window(_ resource: String, seconds: Int, _ p: AppProcesses) async throws {
      let reset = Int(Date().timeIntervalSince1970) + seconds
      try await p.double("POST", "/_double/ratelimit?resource=\(resource)&remaining=0&reset=\(reset)")
    }

    /// The JavaScript expression that is true once the state is on screen and settled.
    private static func settled(_ state: State) -> String {
      let details = """
        Array.from(document.querySelectorAll('[role=feed] article')).filter((a) => {
          const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;
        }).every((a) => a.querySelector('[data-stargazers] [data-state]'))
        """
      switch state {
      case .landing: return "document.querySelector('.landing')"
      case .results, .dark, .mobile: return "\(Reader.cardCount) >= 20 && \(details)"
      case .empty: return "document.querySelector('.state-empty')"
      case .firstPageError: return "document.querySelector('#feed-tail .state-error')"
      case .fragmentError:
        // Rows up to 100 come from the cached first search page: scroll on until the next one fails.
        return
          "(window.scrollTo(0, document.documentElement.scrollHeight), document.querySelector('#feed-tail .state-error'))"
      case .searchRateLimit: return "document.querySelector('#feed-tail .state-limited')"
      case .coreRateLimit: return "document.querySelector('.core-notice')"
      case .end, .cap: return "document.querySelector('#feed-tail .state-end')"
      case .noScript:
        return
          "document.querySelector('[role=feed] article .avatar img') && !\(Reader.modulesRun)"
      }
    }

    private static func options(_ state: State) -> BrowserSessionOptions {
      switch state {
      case .mobile: return Reader.options(width: 390, height: 844)
      default: return Reader.options()
      }
    }

    @Test(arguments: State.allCases)
    func axeFindsNoViolation(_ state: State) async throws {
      let axe = try AxeCore.source()
      try await Reader.withApp { p in
        try await withBrowserSession(options: Self.options(state)) { session in
          try await Reader.reduceMotion(session, dark: state == .dark)
          if state == .mobile { try await Reader.phone(session) }
          let search = p.baseURL + "/?" + Reader.query
          switch state {
          case .landing:
            try await session.navigate(to: p.baseURL + "/")
          case .results, .dark, .mobile:
            try await Reader.openSearch(session, p)
            if state == .results {
              try await Reader.scroll(session, toRows: 60)
              try await session.executeAsyncScript(Reader.scrollCardToTop, args: [41, 0])
            }
          case .empty:
            try await session.navigate(to: p.baseURL + "/?q=zzqxjv")
          case .firstPageError:
            try await p.double("POST", "/_double/faults?rate5xx=1")
            try await session.navigate(to: search)
          case .fragmentError:
            try await Reader.openSearch(session, p)
            try await p.double("POST", "/_double/faults?rate5xx=1")
            try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
          case .searchRateLimit:
            try await Self.window("search", seconds: 300, p)
            try await session.navigate(to: search)
          case .coreRateLimit:
            try await Self.window("core", seconds: 1800, p)
            try await session.navigate(to: search)
          case .end:
            try await session.navigate(to: p.baseURL + "/?q=language%3Azig+stars%3A%3E1000")
          case .cap:
            // Lists go on past GitHub's cap by windows; one whose query is too long to take a window's
            // qualifiers within GitHub's 256 characters still ends there, and says why.
            let long = "stars%3A%3E%3D0" + String(repeating: "+fork%3Afalse", count: 21)
            try await session.navigate(to: p.baseURL + "/?q=\(long)&sort=stars&order=desc&page=50")
          case .noScript:
            // axe cannot finish in a page with scripting off (its promises never settle), so the page's
            // own scripts are blocked instead and each <noscript> is expanded as a no-JS parser would.
            try await session.cdp("Network.enable")
            try await session.cdp("Network.setBlockedURLs", ["urls": ["*.js"]])
            try await session.navigate(to: search)
            try await session.executeScript(
              """
              document.querySelectorAll('noscript').forEach((n) => {
                const t = document.createElement('template'); t.innerHTML = n.textContent; n.replaceWith(t.content);
              });
              """)
          }
          try await session.waitForScript(
            Self.settled(state), description: "\(state) on screen", timeout: .seconds(20))
          if state == .fragmentError || state == .end || state == .cap {
            try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
          }
          // Two frames: the scroll above is painted before the screenshot and axe.
          try await session.executeAsyncScript(EngineFlowBrowserTests.twoFrames)
          try await Reader.screenshot(session, "state-\(state.rawValue)")
          let violations = try await AxeCore.run(in: session, source: axe)
          expectTrue(violations.isEmpty, "\(state): \(violations)")
          try await checkState(state, session, p)
        }
      }
    }

    /// The text of the feed's error state.
    private func errorText(_ session: BrowserSession) async throws -> String {
      try await session.executeScript("return document.querySelector('#feed-tail .state-error').textContent;")
        .string ?? ""
    }

    /// What each state must say beyond passing axe.
    private func checkState(_ state: State, _ session: BrowserSession, _ p: AppProcesses) async throws {
      switch state {
      case .firstPageError:
        // It says what failed, shows one Retry, and retries by itself at most once.
        let text = try await errorText(session)
        expectTrue(text.contains("Couldn’t load repositories."), "\(text)")
        expectTrue(!text.contains("more repositories"), "\(text)")
        // The page's one automatic retry comes after 1–1.25 s, a second would come 2 s later.
        // Real time: an absence has no event, so this waits past both.
        try await Task.sleep(for: .seconds(5))
        let buttons = try await session.executeScript(
          "return Array.from(document.querySelectorAll('button, a')).filter((b) => /retry|try again/i.test(b.textContent) && b.getClientRects().length > 0).length;"
        )
        expectEqual(buttons.int, 1, "one Retry")
        expectTrue(try await Reader.requests(route: "fragment", p) <= 1, "at most one silent retry")
        try await p.double("POST", "/_double/faults?rate5xx=0")
        let retry = try #require(try await session.findElement(css: "#feed-tail button.retry"))
        try await session.click(retry)
        try await session.waitForScript(
          "\(Reader.cardCount) >= 20", description: "cards after Retry", timeout: .seconds(15))
      case .fragmentError:
        let text = try await errorText(session)
        expectTrue(text.contains("Couldn’t load more repositories."), "\(text)")
      case .results:
        try await expectEqual(
          session.executeScript(
            "return !!document.querySelector('.result-count') && /^[0-9,]+ repositories$/.test(document.querySelector('.result-count').textContent);"
          ).bool, true, "the result count is shown")
        // While a batch loads, its trigger link is hidden.
        try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
        let hiddenWhileLoading = try await session.executeScript(
          """
          const feed = document.getElementById('feed');
          const link = document.querySelector('#feed-tail a[rel=next]');
          return feed.getAttribute('aria-busy') !== 'true' || !link || link.getClientRects().length === 0;
          """)
        expectEqual(hiddenWhileLoading.bool, true, "the next-page link is hidden while loading")
      default:
        break
      }
    }
  }
}
