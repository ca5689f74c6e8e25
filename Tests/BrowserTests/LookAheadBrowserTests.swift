import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// No avatar or star history is asked for a card more than 1,500 px below the viewport, even when the
  /// reader jumps: End, and a scrollbar drag (large scroll steps a frame apart). Would-be requests are
  /// recorded in the page, with their card's distance below the viewport at that moment.
  @Suite("Look-ahead in every engine", .engineFixture, .timeLimit(.minutes(8)))
  struct LookAheadBrowserTests {
    static let limit = 1500.0

    /// Records, for every avatar and history details.js starts loading, how far below the viewport its
    /// card was at that moment (it marks them data-state="loading" just before the request).
    static let recorder = """
      window.__lookAhead = [];
      new MutationObserver((records) => {
        for (const r of records) {
          if (r.target.dataset.state !== 'loading' || r.oldValue === 'loading') continue;
          const card = r.target.closest('article');
          if (!card) continue;
          window.__lookAhead.push({ kind: r.target.matches('.avatar') ? 'avatar' : 'history',
            card: Number(card.getAttribute('aria-posinset')),
            below: Math.round(card.getBoundingClientRect().top - innerHeight) });
        }
      }).observe(document.getElementById('results'), { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-state'] });
      """

    /// One step of a "scrollbar" drag: to `arguments[0]` of the way down, then the next frame. Each step
    /// is its own command, so a slow engine (WebKit paints a few frames a second here under load) meets
    /// no script timeout.
    static let dragStep = """
      const done = arguments[1];
      window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * arguments[0]);
      requestAnimationFrame(() => done(true));
      """

    /// The drag's stops: from the top to the bottom in 12 steps, then halfway back up.
    static let dragStops = (1...12).map { Double($0) / 12 } + (6...11).reversed().map { Double($0) / 12 }

    @Test(arguments: BrowserEngine.allCases)
    func jumpsRequestNothingFarBelowTheViewport(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await session.executeScript(Self.recorder)
      // End, three times, each once the list has grown.
      for _ in 0..<3 {
        let count = try await session.executeScript("return \(Reader.rowCount);").int ?? 0
        try await session.executeScript("document.activeElement && document.activeElement.blur();")
        try await session.pressKeys(WebDriverKey.end)
        // 45 s: at load 18 (a full run with both browser shards, AppTests and ClusterTests at once),
        // Chromium took over 15 s to show the next rows after End.
        try await session.waitForScript(
          "\(Reader.rowCount) > \(count)", description: "\(engine): more rows after End",
          timeout: .seconds(45))
      }
      for stop in Self.dragStops {
        try await session.executeAsyncScript(Self.dragStep, args: [.number(stop)])
      }
      // Everything asked for on the way has been asked for once the cards on screen have their details.
      try await session.waitForScript(
        ScreenWidthBrowserTests.detailsOnScreen, description: "\(engine): details on screen",
        timeout: .seconds(20))
      let records = try await session.executeScript("return window.__lookAhead;").array ?? []
      let below = records.compactMap { $0["below"]?.double }
      print(
        "look-ahead in \(engine): \(records.count) requests, furthest \(below.max() ?? 0) px below the viewport"
      )
      expectTrue(records.count >= 10, "\(engine): the jumps asked for details: \(records.count)")
      let far = records.filter { ($0["below"]?.double ?? 0) > Self.limit }
      expectTrue(far.isEmpty, "\(engine): asked for cards more than \(Self.limit) px below: \(far.prefix(5))")
    }
  }
}
