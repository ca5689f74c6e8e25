import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The XSS check in real Chromium: repositories whose descriptions, topics, names and owner
  /// login carry script and attribute payloads (github-double `--hostile-names`), and queries that do,
  /// through full pages, fragments appended by feed.js and the no-JS pages. Every payload would set
  /// `window.__xss`; none may, no CSP violation may occur, and each payload must show as text.
  @Suite("XSS in Chromium", .timeLimit(.minutes(10)))
  struct XSSBrowserTests {
    /// The double's description payloads (CatalogVocabulary.xssPayloads); each is also a topic.
    static let descriptionPayloads = [
      "<img src=x onerror=window.__xss=1>", "\"><script>window.__xss=1</script>",
      "'><svg onload=window.__xss=1>", "</textarea><script>window.__xss=1</script>",
      "{{#x}}{{{html}}}{{/x}}<img src=x onerror=window.__xss=1> javascript:window.__xss=1",
      "<a href=\"javascript:window.__xss=1\">click</a>",
    ]
    /// Repository names (CatalogVocabulary.xssNamePayloads) and the owner login.
    static let namePayloads = ["\"><script>window.__xss=1</script>", "<img src=x onerror=window.__xss=1>"]
    static let loginPayload = "'><svg onload=window.__xss=1>"

    /// Fixture repositories `q=xss` finds: six with payload descriptions and topics, three with names.
    static let fixtureCount = 9
    /// Small batches, so the fixtures arrive through both the streamed page and fragments.
    static let batchSize = 3

    // Tidy: every fixture keeps its topics (the realistic double drops them from older-era items).
    static let doubleArguments = [
      "--hostile-names", "--tidy", "--search-limit", "100000", "--core-limit", "1000000",
    ]

    // MARK: Helpers

    /// Every card's text, in order.
    private func cardTexts(_ session: BrowserSession) async throws -> [String] {
      let texts = try await session.executeScript(
        """
        return Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'))
          .filter((a) => a.getBoundingClientRect().height > 0).map((a) => a.textContent);
        """)
      return texts.array?.compactMap(\.string) ?? []
    }

    /// Scrolls until `count` cards are in the feed (fragments appended by feed.js).
    private func scrollUntil(_ session: BrowserSession, count: Int) async throws {
      try await waitUntil("\(count) cards after scrolling", timeout: .seconds(20), poll: .milliseconds(200)) {
        try await session.executeScript(
          "window.scrollTo(0, document.documentElement.scrollHeight);")
        let cards = try await session.executeScript(
          "return document.querySelectorAll('[role=feed] article[data-repo-id]').length;")
        return (cards.int ?? 0) >= count
      }
    }

    /// Waits until the page has settled, by its own signals: loaded, the feed not busy
    /// (`aria-busy`), no avatar or star history loading (`data-state`), every image finished (loaded
    /// or failed, so an `onerror` payload has had its event), and all of that still true after two
    /// frames and a task: the loads those frames start have started, and the events queued by what
    /// finished (an error handler, a CSP violation report) have run.
    private func settle(_ session: BrowserSession) async throws {
      try await session.waitForScript("document.readyState === 'complete'", timeout: .seconds(15))
      try await waitUntil("the page settled", timeout: .seconds(20)) {
        try await session.executeAsyncScript(Self.settled).bool == true
      }
    }

    /// Answers whether the page is idle by its own signals, twice, two frames and a task apart.
    static let settled = """
      const done = arguments[arguments.length - 1];
      const idle = () => document.readyState === 'complete'
        && !document.querySelector('[aria-busy="true"], [data-state="loading"]')
        && Array.from(document.images).every((image) => image.complete || image.loading === 'lazy');
      if (!idle()) { done(false); return; }
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(idle()), 0)));
      """

    private func expectClean(_ findings: XSSFindings, _ where_: String) {
      expectTrue(findings.flagWrites.isEmpty, "window.__xss was set on \(where_): \(findings.flagWrites)")
      expectTrue(findings.cspViolations.isEmpty, "CSP violations on \(where_): \(findings.cspViolations)")
      expectTrue(findings.cspLogs.isEmpty, "CSP console messages on \(where_): \(findings.cspLogs)")
      expectTrue(
        findings.scriptAttributes.isEmpty,
        "script-bearing attributes on \(where_): \(findings.scriptAttributes)")
      expectTrue(findings.foreignScripts.isEmpty, "foreign scripts on \(where_): \(findings.foreignScripts)")
    }

    // MARK: Scenarios

    @Test func hostileRepositoriesRunNoScriptAndShowAsText() async throws {
      try await AppProcesses.with(
        doubleArguments: Self.doubleArguments, appArguments: ["--batch-size", String(Self.batchSize)]
      ) { p in
        try await withBrowserSession { session in
          try await session.addScriptToEvaluateOnNewDocument(XSSProbe.install)
          // Descending: description payloads stream with the page, names arrive in fragments;
          // ascending: the other way round.
          for order in ["desc", "asc"] {
            let url = p.baseURL + "/?q=xss&sort=stars&order=\(order)"
            try await session.navigate(to: url)
            _ = try await session.browserLogs()
            try await session.waitForScript(
              "document.querySelectorAll('[role=feed] article[data-repo-id]').length >= \(Self.batchSize)",
              timeout: .seconds(15))
            try await scrollUntil(session, count: Self.fixtureCount)
            try await session.waitForScript("document.querySelector('.state-end')", timeout: .seconds(15))
            try await settle(session)
            expectClean(try await XSSProbe.findings(session), url)
            let texts = try await cardTexts(session)
            expectEqual(texts.count, Self.fixtureCount)
            let all = texts.joined(separator: "\n")
            for payload in Self.descriptionPayloads {
              expectTrue(
                all.contains("XSS fixture for web apps: " + payload + " (must render as text)"), "\(payload)")
            }
            for payload in Self.namePayloads {
              expectTrue(texts.contains { $0.contains("/" + payload) }, "name \(payload) shown as text")
            }
            expectTrue(texts.contains { $0.contains(Self.loginPayload + "/") }, "login shown as text")
            expectTrue(texts.contains { $0.contains("More from " + Self.loginPayload) })
            // Topics are "#topic" text at the end of each card's facts line.
            let facts = try await session.executeScript(
              "return Array.from(document.querySelectorAll('[role=feed] .card-facts')).map((t) => t.textContent);"
            )
            let factTexts = facts.array?.compactMap(\.string) ?? []
            for payload in Self.descriptionPayloads {
              expectTrue(factTexts.contains { $0.contains(" #" + payload) }, "topic \(payload) shown as text")
            }
          }

          // The no-JS page of the last batch, a fragment URL opened as a page (redirected), and the
          // owner page of the hostile login (not a valid login: the 404 page).
          let login = Self.loginPayload.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
          for path in [
            "/?q=xss&sort=stars&order=desc&page=3", "/fragments/results?q=xss&sort=stars&order=asc&after=3",
            "/owners/\(login)", "/fragments/owners/\(login)",
          ] {
            try await session.navigate(to: p.baseURL + path)
            try await settle(session)
            expectClean(try await XSSProbe.findings(session), path)
          }

          // The probe can fail: markup injected past the App's escaping is caught by CSP and the DOM
          // scan, and a script that does run is caught by the flag trap.
          try await session.navigate(to: p.baseURL + "/?q=xss")
          try await settle(session)
          _ = try await XSSProbe.findings(session)
          try await session.executeScript(
            "document.body.insertAdjacentHTML('beforeend', '<img src=x onerror=window.__xss=1>');")
          try await session.waitForScript("window.__cspViolations.length > 0", timeout: .seconds(5))
          try await session.executeScript("window.__xss = 1;")
          let control = try await XSSProbe.findings(session)
          expectTrue(!control.cspViolations.isEmpty && !control.scriptAttributes.isEmpty)
          expectTrue(!control.flagWrites.isEmpty)
        }
      }
    }

    /// (query string after `/?`, text the page must show for it).
    static let hostileQueries: [(String, String)] = [
      ("q=" + encode("\"><script>window.__xss=1</script>"), "\"><script>window.__xss=1</script>"),
      ("q=" + encode("<img src=x onerror=window.__xss=1>"), "<img src=x onerror=window.__xss=1>"),
      ("q=" + encode("'><svg onload=window.__xss=1>") + "&page=2", "'><svg onload=window.__xss=1>"),
      (
        "q=" + encode("</title><script>window.__xss=1</script>") + "&sort=stars",
        "</title><script>window.__xss=1</script>"
      ),
      ("q=" + encode("{{#x}}{{{html}}}{{/x}}<img src=x onerror=window.__xss=1>"), "{{#x}}{{{html}}}{{/x}}"),
      ("q=xss%20" + encode("<img src=x onerror=window.__xss=1>"), "xss <img src=x onerror=window.__xss=1>"),
      ("q=xss&sort=" + encode("javascript:window.__xss=1"), "Results can be sorted by"),
      ("q=xss&order=" + encode("javascript:window.__xss=1"), "The order must be"),
      ("q=xss&sort=stars&order=" + encode("\"><img src=x onerror=window.__xss=1>"), "The order must be"),
    ]

    @Test func hostileQueriesRunNoScriptAndShowAsText() async throws {
      try await AppProcesses.with(doubleArguments: Self.doubleArguments) { p in
        try await withBrowserSession { session in
          try await session.addScriptToEvaluateOnNewDocument(XSSProbe.install)
          for (query, shown) in Self.hostileQueries {
            let url = p.baseURL + "/?" + query
            try await session.navigate(to: url)
            try await settle(session)
            // Let feed.js fetch the next batch (with the query in its URL) if there is one.
            try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
            try await settle(session)
            expectClean(try await XSSProbe.findings(session), url)
            let text = try await session.executeScript("return document.body.textContent;").string ?? ""
            let field = try await session.executeScript(
              "const q = document.querySelector('input[name=q]'); return q ? q.value : null;")
            expectTrue(
              text.contains(shown) || field.string?.contains(shown) == true,
              "\(url) should show \(shown) as text")
          }
          // The fragment itself, fetched the way feed.js does, then appended.
          let fragment =
            "/fragments/results?q=" + Self.encode("<img src=x onerror=window.__xss=1> xss") + "&after=0"
          try await session.navigate(to: p.baseURL + "/?q=xss")
          try await settle(session)
          let appended = try await session.executeAsyncScript(
            """
            const done = arguments[arguments.length - 1];
            fetch(arguments[0]).then((r) => r.text()).then((html) => {
              const t = document.createElement('template');
              t.innerHTML = html;
              document.querySelector('[role=feed]').append(t.content);
              done(true);
            }, () => done(false));
            """, args: [.string(fragment)])
          expectEqual(appended.bool, true, "the fragment was fetched and appended")
          try await settle(session)
          expectClean(try await XSSProbe.findings(session), fragment)
        }
      }
    }

    /// Percent-encodes everything but unreserved characters.
    static func encode(_ text: String) -> String {
      text.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
          charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? ""
    }
  }
}
