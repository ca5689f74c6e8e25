import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// No avatar or star history is asked for a card more than 1,500 px below the viewport, even when the
  /// reader jumps: End, and a scrollbar drag (large scroll steps a frame apart).
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

    /// Drags the "scrollbar": from the top to the bottom in 12 steps a frame apart, then back up.
    static let drag = """
      const done = arguments[0];
      const max = () => document.documentElement.scrollHeight - innerHeight;
      const stops = [];
      for (let i = 1; i <= 12; i++) stops.push(max() * i / 12);
      for (let i = 11; i >= 6; i--) stops.push(max() * i / 12);
      const next = () => {
        if (!stops.length) { done(true); return; }
        window.scrollTo(0, stops.shift());
        requestAnimationFrame(() => requestAnimationFrame(next));
      };
      next();
      """

    @Test(arguments: BrowserEngine.allCases)
    func jumpsRequestNothingFarBelowTheViewport(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.session(engine)
      try await Reader.openSearch(session, pool.processes)
      try await session.executeScript(Self.recorder)
      // End, three times, each once the list has grown.
      for _ in 0..<3 {
        let count = try await session.executeScript("return \(Reader.cardCount);").int ?? 0
        try await session.executeScript("document.activeElement && document.activeElement.blur();")
        try await session.pressKeys(WebDriverKey.end)
        try await session.waitForScript(
          "\(Reader.cardCount) > \(count)", description: "\(engine): more cards after End",
          timeout: .seconds(15))
      }
      try await session.executeAsyncScript(Self.drag)
      // Everything asked for on the way has been asked for once the cards on screen have their details.
      try await session.waitForScript(
        ScreenWidthBrowserTests.detailsOnScreen, description: "\(engine): details on screen",
        timeout: .seconds(20))
      let records = try await session.executeScript("return window.__lookAhead;").array ?? []
      let below = records.compactMap { $0["below"]?.double }
      print(
        "look-ahead in \(engine): \(records.count) requests, furthest \(below.max() ?? 0) px below the viewport"
      )
      #expect(records.count >= 10, "\(engine): the jumps asked for details: \(records.count)")
      let far = records.filter { ($0["below"]?.double ?? 0) > Self.limit }
      #expect(far.isEmpty, "\(engine): asked for cards more than \(Self.limit) px below: \(far.prefix(5))")
    }
  }
}
