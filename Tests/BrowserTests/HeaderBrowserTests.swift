import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The header slides away while the reader scrolls down and comes back on the first scroll up, in
  /// every engine; "/" and focus bring it back without moving the list. (Reduced motion, which shows
  /// it at once, is checked in `EngineFlowBrowserTests.reducedMotionStopsTheAnimations`, in the
  /// reduced-motion session that test starts anyway.)
  @Suite("The sliding header in every engine", .engineFixture, .timeLimit(.minutes(6)))
  struct HeaderBrowserTests {
    static let engines = BrowserEngine.allCases

    /// Scrolls by `arguments[0]` px in steps of `arguments[1]` px, one per animation frame (a reader's
    /// wheel or finger), and resolves two frames after the last step.
    static let scrollBy = """
      const done = arguments[arguments.length - 1];
      const total = arguments[0], step = arguments[1];
      let moved = 0;
      const frame = () => {
        const next = Math.min(Math.abs(total), moved + Math.abs(step));
        window.scrollBy(0, Math.sign(total) * (next - moved));
        moved = next;
        if (moved < Math.abs(total)) requestAnimationFrame(frame);
        else requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
      };
      requestAnimationFrame(frame);
      """

    /// The header's state, its box in the viewport, and the page's offset.
    static let header = """
      const h = document.querySelector('.site-header');
      const r = h.getBoundingClientRect();
      return { state: h.dataset.header, top: r.top, bottom: r.bottom, y: scrollY,
               duration: getComputedStyle(h).transitionDuration,
               focused: document.activeElement ? document.activeElement.id : '' };
      """

    /// The header on top of the viewport with its slide over: its transition no longer running (WebKit
    /// once reported the top at 0 and then at -48 px while the slide in was still being painted).
    static let slidIn = """
      (() => { const h = document.querySelector('.site-header');
        return h.getAnimations().length === 0 && Math.abs(h.getBoundingClientRect().top) < 0.5; })()
      """

    /// Waits until the header is in `state` and settled (not sliding); returns what `header` reads.
    private func wait(_ session: BrowserSession, for state: String) async throws -> WebDriverJSON {
      try await session.waitForScript(
        "document.querySelector('.site-header').dataset.header === '\(state)'",
        description: "\(session.engine): the header \(state)", timeout: .seconds(10))
      try await session.executeAsyncScript(EngineFlowBrowserTests.twoFrames)
      return try await session.executeScript(Self.header)
    }

    /// A long list, scrolled well past the header, at rest.
    private func deepInTheList(_ session: BrowserSession, _ pool: EnginePool) async throws {
      try await Reader.openSearch(session, pool.processes)
      try await Reader.scroll(session, toRows: 60)
      try await session.executeAsyncScript(Reader.scrollCardToTop, args: [30, 0])
      _ = try await wait(session, for: "flow")
    }

    @Test(arguments: engines)
    func theHeaderSlidesAwayDownAndComesBackOnTheFirstScrollUp(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await session.executeScript("window.scrollTo(0, 0);")
      let atTop = try await wait(session, for: "flow")
      expectEqual(atTop["top"]?.double, 0, "\(engine): the header at the top of the page: \(atTop)")
      try await deepInTheList(session, pool)
      if engine == .chromium { try await session.executeScript(Reader.watchLayoutShift) }
      try await session.executeAsyncScript(Self.scrollBy, args: [600, 20])
      let down = try await wait(session, for: "flow")
      expectTrue((down["bottom"]?.double ?? 1) <= 0, "\(engine): scrolled down, the header is away: \(down)")
      // The first scroll up, a few px, brings it back on top of the viewport.
      try await session.executeAsyncScript(Self.scrollBy, args: [-12, -4])
      let up = try await wait(session, for: "shown")
      try await session.waitForScript(
        Self.slidIn,
        description: "\(engine): the header slid in", timeout: .seconds(5))
      expectTrue((up["y"]?.double ?? 0) > 1000, "\(engine): still deep in the list: \(up)")
      // Down again: away, and no card moved meanwhile (only transform changes).
      try await session.executeAsyncScript(Self.scrollBy, args: [200, 20])
      let again = try await wait(session, for: "flow")
      expectTrue((again["bottom"]?.double ?? 1) <= 0, "\(engine): \(again)")
      if engine == .chromium {
        let shift = try await session.executeAsyncScript(Reader.layoutShift)
        expectEqual(shift["value"]?.double, 0, "\(engine): layout shift \(shift)")
      }
    }

    @Test(arguments: engines)
    func slashAndFocusBringTheHeaderBackWithoutMovingTheList(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await deepInTheList(session, pool)
      let before = try await session.executeScript("return scrollY;").double ?? 0
      try await session.executeScript("document.activeElement && document.activeElement.blur();")
      try await session.pressKeys("/")
      _ = try await wait(session, for: "shown")
      try await session.waitForScript(
        Self.slidIn,
        description: "\(engine): the header slid in", timeout: .seconds(5))
      let slash = try await session.executeScript(Self.header)
      expectEqual(slash["focused"]?.string, "q", "\(engine): / puts the cursor in the search box: \(slash)")
      expectEqual(slash["y"]?.double, before, "\(engine): the list stays where it was: \(slash) vs \(before)")
      expectTrue((slash["top"]?.double ?? -1) > -1, "\(engine): the header is on screen: \(slash)")
      // Away again, then the search box focused the way a script or a screen reader does it.
      try await session.executeScript("document.activeElement.blur();")
      try await session.executeAsyncScript(Self.scrollBy, args: [300, 20])
      _ = try await wait(session, for: "flow")
      let away = try await session.executeScript("return scrollY;").double ?? 0
      try await session.executeScript("document.getElementById('q').focus();")
      try await session.executeAsyncScript(EngineFlowBrowserTests.twoFrames)
      let focused = try await wait(session, for: "shown")
      expectEqual(
        focused["y"]?.double, away, "\(engine): focus does not scroll to the top: \(focused) vs \(away)")
      expectTrue(
        abs(focused["top"]?.double ?? -100) < 0.5, "\(engine): the header is wholly on screen: \(focused)")
      try await session.executeScript("document.activeElement.blur();")
    }
  }
}
