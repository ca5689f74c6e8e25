import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Back returns to the same rows with the same card at the top, whether or not Chromium kept the page
  /// in its back/forward cache; a reload starts again from the first batch at the top.
  @Suite("Back and refresh")
  struct BackAndRefreshBrowserTests {
    /// Rows loaded before leaving, and the card put at the top.
    static let rows = 120
    static let topPosition = 87

    /// Scrolls to `rows`, puts `topPosition` near the top, leaves for the landing page and comes back.
    /// Returns whether the document survived (true: it came from the back/forward cache).
    private func leaveAndComeBack(_ session: BrowserSession, _ p: AppProcesses) async throws -> Bool {
      try await Reader.openSearch(session, p)
      try await Reader.scroll(session, toRows: Self.rows)
      // The card half under the sticky header: it still counts as the top one, at a negative offset.
      try await session.executeScript(Reader.scrollCardToTop, args: [.number(Double(Self.topPosition)), -40])
      // Let feed.js save the position (it writes history.state at most every 250 ms) and any batch the
      // scroll asked for arrive.
      try await Task.sleep(for: .milliseconds(700))
      try await session.waitForScript("document.getElementById('feed').getAttribute('aria-busy') === 'false'")
      try await Task.sleep(for: .milliseconds(400))
      let before = try #require(try await Reader.top(session))
      #expect(before.position == Self.topPosition)
      let loaded = try await session.executeScript("return \(Reader.cardCount);").int ?? 0
      try await session.executeScript("window.__sameDocument = true;")

      try await session.navigate(to: p.baseURL + "/")
      #expect(try await session.findElement(css: ".landing") != nil)
      try await session.back()

      try await session.waitForScript(
        "\(Reader.cardCount) >= \(loaded)", description: "\(loaded) rows back", timeout: .seconds(20))
      try await session.waitForScript(
        "!document.documentElement.classList.contains('restoring')", timeout: .seconds(10))
      try await Task.sleep(for: .milliseconds(300))
      let after = try #require(try await Reader.top(session), "a card at the top after back")
      #expect(after.position == before.position, "the same card at the top")
      #expect(
        abs(after.offset - before.offset) <= 2, "at the same height: \(after.offset) vs \(before.offset)")
      let count = try await session.executeScript("return \(Reader.cardCount);").int ?? 0
      #expect(count >= loaded && count < loaded + Reader.batchSize, "the same rows, not more: \(count)")
      let ids =
        try await session.executeScript(
          "return Array.from(document.querySelectorAll('[role=feed] article')).map((a) => a.getAttribute('aria-posinset'));"
        ).array?.compactMap { $0.string.flatMap(Int.init) } ?? []
      #expect(ids == Array(1...max(1, ids.count)), "rows 1…N without a gap or a duplicate")
      return try await session.executeScript("return window.__sameDocument === true;").bool ?? false
    }

    @Test func backWithoutTheBackForwardCacheRestoresTheRowsAndTheTopCard() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options(extra: ["--disable-features=BackForwardCache"]))
        {
          session in
          let cached = try await leaveAndComeBack(session, p)
          #expect(!cached, "the back/forward cache is off: the page must have been loaded again")
          let type = try await session.executeScript(
            "return performance.getEntriesByType('navigation')[0].type;")
          #expect(type.string == "back_forward")
        }
      }
    }

    @Test func backWithTheBackForwardCacheKeepsTheRowsAndTheTopCard() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          // Either way the reader must see the same place, whether the page came from the cache or not.
          _ = try await leaveAndComeBack(session, p)
        }
      }
    }

    @Test func refreshStartsAgainAtTheFirstBatchAndTheTop() async throws {
      try await Reader.withApp { p in
        try await withBrowserSession(options: Reader.options()) { session in
          try await Reader.openSearch(session, p)
          try await Reader.scroll(session, toRows: 60)
          try await session.executeScript(Reader.scrollCardToTop, args: [40, 0])
          try await Task.sleep(for: .milliseconds(700))
          try await session.refresh()
          try await session.waitForScript("\(Reader.cardCount) >= \(Reader.batchSize)")
          // Give a wrong restore the time it would need to show.
          try await Task.sleep(for: .seconds(1))
          // The first batch (a tall window may prefetch the second at once), not the 60 rows of before.
          let count = try await session.executeScript("return \(Reader.cardCount);").int ?? 0
          #expect(
            count == Reader.batchSize || count == 2 * Reader.batchSize, "\(count) rows after the reload")
          #expect(try await session.executeScript("return window.scrollY;").int == 0)
          #expect(try await Reader.top(session)?.position == 1)
        }
      }
    }
  }
}
