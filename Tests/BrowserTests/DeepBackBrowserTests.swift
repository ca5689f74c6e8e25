import Foundation
import TestSupport
import Testing

extension BrowserSuites.DeepScrollBrowserTests {
  /// Row 20,000: the page a reader reaches by following "More results" a thousand times (the links
  /// are followed on the server here, each a fragment like those the page fetches), opened in the engine
  /// with its back/forward cache off; the reader reads on two batches, leaves for another search and
  /// comes back to the same card at the same height, with the batches around it fetched again and
  /// nothing else.
  @Test func backAtRowTwentyThousandReturnsToTheSameRow() async throws {
    // 24,000 repositories: the list runs past row 20,000 (the long query matches about 92% of them).
    // No latency: the walk to row 20,000 makes about 400 searches.
    try await Reader.withApp(double: ["--repos", "24000", "--latency", "0"]) { p in
      let started = ContinuousClock.now
      let href = try await Self.link(toRow: 20_000, p)
      print("deep back: row 20,001's link after \(ContinuousClock.now - started): \(href)")
      for engine in [BrowserEngine.chromium, .webkit] {
        try await Self.leaveAndComeBack(at: href, engine, p)
      }
    }
  }

  /// Opens `href`, reads on to row 20,060, leaves card 20,030 at the top for another search and
  /// comes back.
  static func leaveAndComeBack(at href: String, _ engine: BrowserEngine, _ p: AppProcesses) async throws {
    let options = BrowserSessionOptions(engine: engine).with {
      $0.backForwardCache = false
      $0.reducedMotion = true
    }
    try await withBrowserSession(options: options) { session in
      try await session.navigate(to: p.baseURL + href)
      try await session.waitForScript(
        "document.querySelector('[role=feed] article[aria-posinset=\"20001\"]') && \(Reader.modulesRun)",
        description: "\(engine): row 20,001 first", timeout: .seconds(20))
      // Two batches further on, a screen at a time (a jump to the end would pull batches on until the
      // first ones are parked), then card 20,030 at the top, below the header.
      try await session.waitForScript(
        """
        (window.scrollBy(0, window.innerHeight / 2),
         !!document.querySelector('[role=feed] article[aria-posinset="20060"]'))
        """, description: "\(engine): rows to 20,060", timeout: .seconds(30), poll: .milliseconds(300))
      let top = 20_030
      try await Reader.putCardAtTop(session, top, offset: -40)
      try await Reader.settle(session, top: top)
      let before = try #require(try await Reader.top(session))
      expectEqual(before.position, top, "\(engine): \(before)")
      let requestsBefore = try await Reader.leaveForAnotherSearchAndGoBack(session, p)
      try await session.waitForScript(
        "!document.documentElement.classList.contains('restoring') && !!document.querySelector('[role=feed] article[aria-posinset=\"\(top)\"]')",
        description: "\(engine): back at row \(top)", timeout: .seconds(30))
      try await session.executeAsyncScript(BrowserSuites.EngineFlowBrowserTests.twoFrames)
      let after = try #require(try await Reader.top(session), "\(engine): a card at the top after back")
      let cached = try await session.executeScript(Reader.sameDocument).bool ?? false
      let requests = try await Reader.requests(route: "fragment", p) - requestsBefore
      print(
        "back \(engine) at row \(top): \(requests) fragment requests, cached: \(cached), \(before) -> \(after)"
      )
      expectTrue(!cached, "\(engine): the cache is off, the page must have been loaded again")
      expectEqual(after.position, before.position, "\(engine): back at \(after), left at \(before)")
      expectTrue(abs(after.offset - before.offset) <= 2, "\(engine): \(after.offset) vs \(before.offset)")
      expectTrue(
        requests <= BrowserSuites.EngineFlowBrowserTests.restoreRequests,
        "\(engine): \(requests) fragment requests")
      try await Reader.checkedCards(session)
    }
  }

  /// The no-JS page URL of the batch after `row` rows of `Reader.query`, reached by following each
  /// batch's next link from the first (`a[rel=next]`'s `data-fragment`), as a full page URL.
  /// A second app on the same double follows them in batches of 100 (cursors name rows, not batches,
  /// so its links serve `p`'s app alike): a fifth of the requests.
  static func link(toRow row: Int, _ p: AppProcesses) async throws -> String {
    let walker = try AppProcesses.startApp(
      doublePort: p.doublePort, arguments: ["--batch-size", "100", "--read-ahead", "0"],
      name: "repo-scroll (walker)")
    return try await withCleanup({ await walker.terminate() }) {
      let port = try await walker.waitForListeningPort()
      var fragment = "/fragments/results?\(Reader.query)&after=0"
      var position = 0
      while true {
        let reply = try await WebDriverLoopbackHTTP.exchange(
          port: port, method: "GET", path: fragment, body: nil, timeout: .seconds(60))
        try #require(reply.status == 200, "\(fragment): \(reply.status) \(reply.text.prefix(300))")
        let next = try #require(
          Self.attribute("data-fragment", in: reply.text, after: "rel=\"next\""),
          "no next link after \(position)")
        position += 100
        if position >= row {
          // The full page of the rows after `row`, in `p`'s batches: `page=` names rows by its batch size.
          let after = "after=\(position)"
          try #require(next.contains(after), "\(next)")
          return next.replacingOccurrences(of: "/fragments/results?", with: "/?")
            .replacingOccurrences(of: after, with: "page=\(position / Reader.batchSize + 1)")
        }
        fragment = next
      }
    }
  }

  /// The unescaped value of the first `name="…"` in `html` (after `marker` when given).
  static func attribute(_ name: String, in html: String, after marker: String? = nil) -> String? {
    var rest = html[...]
    if let marker, let at = rest.range(of: marker) { rest = rest[at.lowerBound...] }
    guard let start = rest.range(of: " \(name)=\"") else { return nil }
    let value = rest[start.upperBound...].prefix { $0 != "\"" }
    return String(value).replacingOccurrences(of: "&amp;", with: "&")
  }
}
