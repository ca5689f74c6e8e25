import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The reader's core flows, once per engine: Chromium, Firefox ESR and WebKitGTK. Each flow is one
  /// parameterized test, so a result reads "flow (engine)". Flows that need their own browser settings
  /// (no back/forward cache, no JavaScript, reduced motion) start a session of their own; the rest share
  /// one per engine.
  @Suite("Core flows in every engine", .engineFixture, .timeLimit(.minutes(15)))
  struct EngineFlowBrowserTests {
    static let engines = BrowserEngine.allCases

    /// Resolves after two animation frames: whatever the last script changed has been laid out and painted.
    static let twoFrames =
      "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"

    @Test(arguments: engines)
    func firstLoadShowsTheFirstBatch(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      let cards = try await Reader.checkedCards(session)
      expectEqual(cards.count, Reader.batchSize)
      let page = try await session.executeScript(
        """
        return { js: \(Reader.modulesRun),
                 count: (document.querySelector('.result-count') || {}).textContent || '',
                 busy: document.getElementById('feed').getAttribute('aria-busy') };
        """)
      expectEqual(page["js"]?.bool, true, "\(engine): the modules ran")
      expectEqual(page["count"]?.string?.hasSuffix("repositories"), true, "\(engine): \(page)")
      let errors = try await session.browserLogs().filter(\.isError)
      expectTrue(errors.isEmpty, "\(engine): console errors \(errors.map(\.message))")
    }

    @Test(arguments: engines)
    func scrollingGrowsTheListWithoutDuplicatesOrGaps(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      var count = Reader.batchSize
      for _ in 0..<5 {
        let next = try await Reader.scroll(session, toRows: count + 1)
        expectTrue(next > count)
        count = next
        try await Reader.checkedCards(session)
      }
    }

    /// A reader scrolling steadily at 1,000 px/s for 5 s never meets the end of the list: the next batch
    /// is always there before it is needed.
    @Test(arguments: engines)
    func humanSpeedScrollingNeverReachesTheEnd(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      let result = try await session.executeAsyncScript(
        """
        const done = arguments[0];
        const speed = 1000, duration = 5000;
        const start = performance.now();
        let last = start, y = scrollY, stalls = 0, frames = 0, stalledSince = 0, longest = 0;
        const step = (now) => {
          frames += 1;
          y += speed * (now - last) / 1000;
          last = now;
          window.scrollTo(0, y);
          const max = document.documentElement.scrollHeight - innerHeight;
          // Held at the end of the document while the reader wants to go on.
          if (y > max + 1) {
            if (!stalledSince) { stalledSince = now; stalls += 1; }
            longest = Math.max(longest, now - stalledSince);
            y = max;
          } else {
            stalledSince = 0;
          }
          if (now - start < duration) requestAnimationFrame(step);
          else done({ stalls, longest: Math.round(longest), frames, y: Math.round(scrollY),
                      cards: document.querySelectorAll('[role=feed] article').length });
        };
        requestAnimationFrame(step);
        """)
      print("human-speed scrolling in \(engine): \(result)")
      expectTrue((result["y"]?.double ?? 0) >= 3000, "\(engine): scrolled \(result)")
      expectEqual(result["stalls"]?.int, 0, "\(engine): the reader reached the end of the list: \(result)")
      try await Reader.checkedCards(session)
    }

    @Test(arguments: engines)
    func avatarsAndHistoriesLoadForTheCardsOnScreenOnly(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await waitUntil("\(engine): every visible card's avatar loaded", timeout: .seconds(20)) {
        let flags = try await session.executeScript(ProductPageScripts.visibleAvatarsLoaded).array ?? []
        return !flags.isEmpty && flags.allSatisfy { $0.bool == true }
      }
      try await waitUntil("\(engine): every visible card's history filled", timeout: .seconds(20)) {
        let regions = try await session.executeScript(ProductPageScripts.stargazerRegions)
        let visible = regions["visible"]?.array ?? []
        return !visible.isEmpty && visible.allSatisfy { $0.bool == true }
      }
      let regions = try await session.executeScript(ProductPageScripts.stargazerRegions)
      let far = regions["far"]?.array ?? []
      expectTrue(!far.isEmpty, "\(engine): the first batch reaches well below the viewport")
      expectTrue(far.allSatisfy { $0.bool == false }, "\(engine): cards far below stay empty")
    }

    @Test(arguments: engines)
    func reloadStartsAgainAtTheFirstBatchAndTheTop(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await Reader.scroll(session, toRows: 60)
      try await session.executeAsyncScript(Reader.scrollCardToTop, args: [40, 0])
      try await Reader.waitForSavedTop(session, 40)
      try await session.refresh()
      try await session.waitForScript("\(Reader.cardCount) >= \(Reader.batchSize)", timeout: .seconds(15))
      try await session.executeAsyncScript(Self.twoFrames)
      let count = try await session.executeScript("return \(Reader.rowCount);").int ?? 0
      expectTrue(count <= 2 * Reader.batchSize, "\(engine): \(count) rows after the reload")
      try await expectEqual(session.executeScript("return window.scrollY;").int, 0, "\(engine)")
      try await expectEqual(Reader.top(session)?.position, 1, "\(engine)")
    }

    /// Waits until feed.js has saved card `position` as the top one in history.state.
    // MARK: Back

    /// Rows before leaving: the list's second GitHub page, and past GitHub's 1,000-result cap.
    static let depths = [120, 1_100]
    /// Fragment requests a restore may make: the batches around the saved row, never the list again.
    static let restoreRequests = 4

    /// Scrolls to `rows` rows with the card 26 rows above the end 40 px above the viewport's top, leaves
    /// for another search and comes back; the same rows and the same card at the same height must be
    /// there, brought back with a few fragment requests. Returns whether the document survived (it came
    /// from the back/forward cache).
    private func leaveAndComeBack(_ session: BrowserSession, _ p: AppProcesses, rows: Int) async throws
      -> Bool
    {
      let engine = session.engine
      let top = rows - 26
      try await Reader.openSearch(session, p)
      try await Reader.scroll(session, toRows: rows)
      try await session.waitForScript(
        "document.getElementById('feed').getAttribute('aria-busy') === 'false'", timeout: .seconds(15))
      try await Reader.putCardAtTop(session, top, offset: -40)
      try await Reader.settle(session, top: top)
      let before = try #require(try await Reader.top(session))
      expectEqual(before.position, top, "\(engine)")
      let loaded = try await session.executeScript("return \(Reader.rowCount);").int ?? 0
      let requestsBefore = try await Reader.leaveForAnotherSearchAndGoBack(session, p)

      try await session.waitForScript(
        "\(Reader.rowCount) >= \(loaded)", description: "\(engine): \(loaded) rows back",
        timeout: .seconds(30))
      try await session.waitForScript(
        "!document.documentElement.classList.contains('restoring')", timeout: .seconds(15))
      try await session.executeAsyncScript(Self.twoFrames)
      let after = try #require(try await Reader.top(session), "\(engine): a card at the top after back")
      expectEqual(after.position, before.position, "\(engine): the same card at the top")
      expectTrue(
        abs(after.offset - before.offset) <= 2,
        "\(engine): at the same height: \(after.offset) vs \(before.offset)")
      let count = try await session.executeScript("return \(Reader.rowCount);").int ?? 0
      expectTrue(
        count >= loaded && count < loaded + Reader.batchSize, "\(engine): the same rows, not more: \(count)")
      let requests = try await Reader.requests(route: "fragment", p) - requestsBefore
      let cached = try await session.executeScript(Reader.sameDocument).bool ?? false
      print("back \(engine) at row \(top) of \(loaded): \(requests) fragment requests, cached: \(cached)")
      expectTrue(
        requests <= Self.restoreRequests,
        "\(engine): \(requests) fragment requests to come back to row \(top)")
      try await Reader.checkedCards(session)
      return cached
    }

    /// Back with the engine's back/forward cache on. Each try checks that back is exact (the same rows,
    /// the same card at the same height) whichever way the page came back. An engine may decline to keep
    /// the page in a given run (Firefox drops a page that had a request in flight at pagehide, and evicts
    /// under memory pressure), so the page is left up to `cacheTries` times until one back comes from the
    /// cache; if none does, the run says so, and back was still checked each time.
    @Test(arguments: engines)
    func backFromTheBackForwardCacheReturnsToTheSameCard(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      try await withBrowserSession(options: BrowserSessionOptions(engine: engine)) { session in
        for attempt in 1...Self.cacheTries {
          if try await leaveAndComeBack(session, pool.processes, rows: Self.depths[0]) { return }
          let reason = try await session.executeScript(Self.notRestoredReasons)
          print("\(engine): back try \(attempt) was exact but not from the back/forward cache: \(reason)")
        }
      }
    }

    /// Times the cached back is tried before the test accepts an engine that reloaded the page.
    static let cacheTries = 2

    /// Why the page was not kept, where the engine says (Chromium's `notRestoredReasons`), else null.
    static let notRestoredReasons = """
      const entry = performance.getEntriesByType('navigation')[0];
      return entry && entry.notRestoredReasons ? JSON.stringify(entry.notRestoredReasons).slice(0, 400) : null;
      """

    /// Back without the cache, at row 120 and past GitHub's 1,000-result cap, in one session per engine.
    @Test(arguments: engines)
    func backWithoutTheBackForwardCacheRestoresTheRowsAndTheCard(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let options = BrowserSessionOptions(engine: engine).with { $0.backForwardCache = false }
      try await withBrowserSession(options: options) { session in
        for rows in Self.depths {
          let cached = try await leaveAndComeBack(session, pool.processes, rows: rows)
          expectTrue(
            !cached, "\(engine) at \(rows) rows: the cache is off, the page must have been loaded again")
        }
      }
    }

    // MARK: Search, sort and keys

    @Test(arguments: engines)
    func searchingAndChangingTheSortApplyAtOnce(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.session(engine)
      try await session.navigate(to: pool.processes.baseURL + "/")
      let field = try #require(try await session.findElement(css: "#q"))
      try await session.sendKeys("language:swift" + WebDriverKey.enter, to: field)
      // Each wait includes the page's modules (`html.js`): a sort chosen before they run changes only
      // the menu (the reader presses Search, as without JavaScript). The likely cause of a full run's
      // failure, where Firefox at load 12 waited 15 s for results sorted by forks.
      try await session.waitForScript(
        "location.search.includes('q=language%3Aswift') && \(Reader.cardCount) > 0 && \(Reader.modulesRun)",
        description: "\(engine): results for language:swift", timeout: .seconds(15))
      // Choosing another sort reloads the results at once: no button press.
      let forks = try #require(try await session.findElement(css: "#sort option[value=forks]"))
      try await session.click(forks)
      try await session.waitForScript(
        "location.search.includes('sort=forks') && \(Reader.cardCount) > 0 && \(Reader.modulesRun)",
        description: "\(engine): results sorted by forks after choosing it", timeout: .seconds(15))
      let ascending = try #require(try await session.findElement(css: "#order option[value=asc]"))
      try await session.click(ascending)
      try await session.waitForScript(
        "location.search.includes('order=asc') && location.search.includes('sort=forks') && \(Reader.cardCount) > 0",
        description: "\(engine): ascending after choosing it", timeout: .seconds(15))
      let forkCounts =
        try await session.executeScript(
          """
          return Array.from(document.querySelectorAll('[role=feed] article .card-facts'))
            .map((p) => { const m = /([0-9.]+)(k?) forks?/.exec(p.textContent); return m ? Number(m[1]) * (m[2] ? 1000 : 1) : -1; });
          """
        ).array?.compactMap(\.double) ?? []
      expectTrue(
        !forkCounts.isEmpty && forkCounts == forkCounts.sorted(), "\(engine): ascending forks \(forkCounts)")
      expectTrue(
        try await session.findElement(css: ".search-go") != nil, "\(engine): the Search button stays")
    }

    @Test(arguments: engines)
    func pageDownAndPageUpMoveBetweenCards(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await session.executeScript("document.querySelector('[role=feed] article[data-repo-id]').focus();")
      try await session.pressKeys(WebDriverKey.pageDown)
      let position = try await session.executeScript(
        "return document.activeElement.getAttribute('aria-posinset');")
      expectEqual(position.string, "2", "\(engine)")
      try await session.pressKeys(WebDriverKey.pageUp)
      let back = try await session.executeScript(
        "return document.activeElement.getAttribute('aria-posinset');")
      expectEqual(back.string, "1", "\(engine)")
    }

    /// The document holds only the cards near the reader: Page Up on the first card in it brings back
    /// the batch above and moves to its last card; Page Down on the last card brings back the batch
    /// below; Tab out of the last card still lands on the next card.
    @Test(arguments: engines)
    func pageKeysAndTabCrossTheEdgeOfTheCardsInTheDocument(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let session = try await pool.searching(engine)
      try await Reader.scroll(session, toRows: 140)
      try await Reader.putCardAtTop(session, 130)
      try await session.waitForScript(
        "Number(document.getElementById('feed').dataset.above) > 0",
        description: "\(engine): rows parked above", timeout: .seconds(10))
      let focused = "return Number(document.activeElement.getAttribute('aria-posinset'));"
      let first =
        try await session.executeScript(
          "const a = document.querySelector('[role=feed] article[data-repo-id]'); a.focus(); return Number(a.getAttribute('aria-posinset'));"
        ).int ?? 0
      expectTrue(first > 1, "\(engine): the first card in the document is #\(first)")
      try await session.pressKeys(WebDriverKey.pageUp)
      try await session.waitForScript(
        "Number(document.activeElement.getAttribute('aria-posinset')) === \(first - 1)",
        description: "\(engine): Page Up from #\(first)", timeout: .seconds(10))
      // Back to the top of the list: the rows below the screen are parked, and the keys go on into them.
      try await session.executeScript("window.scrollTo(0, 0);")
      try await session.waitForScript(
        """
        Number(document.getElementById('feed').dataset.below) > 0 &&
          document.querySelector('[role=feed] article[data-repo-id]').getAttribute('aria-posinset') === '1'
        """, description: "\(engine): the top in the document, rows parked below", timeout: .seconds(10))
      let last =
        try await session.executeScript(
          "const all = document.querySelectorAll('[role=feed] article[data-repo-id]'); const a = all[all.length - 1]; a.focus(); return Number(a.getAttribute('aria-posinset'));"
        ).int ?? 0
      try await session.pressKeys(WebDriverKey.pageDown)
      try await session.waitForScript(
        "Number(document.activeElement.getAttribute('aria-posinset')) === \(last + 1)",
        description: "\(engine): Page Down from #\(last)", timeout: .seconds(10))
      // Tab through the card just reached (itself, its title, its owner link) lands on the next card.
      let here = try await session.executeScript(focused).int ?? 0
      for _ in 0..<3 { try await session.pressKeys(WebDriverKey.tab) }
      try await expectEqual(session.executeScript(focused).int, here + 1, "\(engine): Tab past #\(here)")
      try await Reader.checkedCards(session)
    }

    // MARK: Without JavaScript, with reduced motion, axe

    @Test(arguments: engines)
    func theListWorksWithJavaScriptOff(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let options = BrowserSessionOptions(engine: engine).with { $0.javaScriptEnabled = false }
      try await withBrowserSession(options: options) { session in
        try await session.navigate(to: pool.processes.baseURL + "/?" + Reader.query)
        let first = try await session.findElements(css: "[role=feed] article[data-repo-id]")
        expectEqual(first.count, Reader.batchSize, "\(engine)")
        expectTrue(try await session.findElement(css: ".search-go") != nil, "\(engine): the Search button")
        let next = try #require(
          try await session.findElement(css: "a[rel=next]"), "\(engine): a rel=next link")
        try await session.click(next)
        try await waitUntil("\(engine): page 2", timeout: .seconds(15)) {
          try await session.currentURL().contains("page=2")
        }
        let second = try #require(
          try await session.findElement(css: "[role=feed] article[data-repo-id]"),
          "\(engine): cards on page 2")
        let position = try await session.attribute("aria-posinset", of: second)
        expectEqual(position, String(Reader.batchSize + 1), "\(engine)")
        let html = try await session.executeScript("return document.documentElement.className;").string ?? ""
        expectTrue(!html.contains("js"), "\(engine): the page's modules must not have run")
      }
    }

    @Test(arguments: engines)
    func reducedMotionStopsTheAnimations(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let options = BrowserSessionOptions(engine: engine).with { $0.reducedMotion = true }
      try await withBrowserSession(options: options) { session in
        try await Reader.openSearch(session, pool.processes)
        try await session.waitForScript(
          "document.querySelector('[role=feed] article.in-view [data-stargazers] [data-state]')",
          description: "\(engine): a history on screen", timeout: .seconds(20))
        let animations = try await session.executeScript(
          """
          const card = document.querySelector('[role=feed] article.in-view');
          const names = [getComputedStyle(card.querySelector('.card-stars'), '::after').animationName];
          document.querySelectorAll('.spark, .spark-line, .sk, .card-history').forEach((el) => names.push(getComputedStyle(el).animationName));
          return { reduce: matchMedia('(prefers-reduced-motion: reduce)').matches, names: Array.from(new Set(names)) };
          """)
        expectEqual(animations["reduce"]?.bool, true, "\(engine): prefers-reduced-motion matches")
        let names = animations["names"]?.array?.compactMap(\.string) ?? []
        expectEqual(names, ["none"], "\(engine): animations left \(names)")
        // The header comes back and goes away without sliding.
        try await Reader.scroll(session, toRows: 60)
        try await session.executeAsyncScript(Reader.scrollCardToTop, args: [30, 0])
        try await session.executeAsyncScript(HeaderBrowserTests.scrollBy, args: [-12, -4])
        let up = try await session.executeScript(HeaderBrowserTests.header)
        expectEqual(up["state"]?.string, "shown", "\(engine): shown at once: \(up)")
        expectEqual(up["duration"]?.string, "0s", "\(engine): no transition: \(up)")
        expectTrue(abs(up["top"]?.double ?? -100) < 0.5, "\(engine): in place at once: \(up)")
        try await session.executeAsyncScript(HeaderBrowserTests.scrollBy, args: [200, 20])
        let down = try await session.executeScript(HeaderBrowserTests.header)
        expectEqual(down["state"]?.string, "flow", "\(engine): gone at once: \(down)")
      }
    }

    @Test(arguments: engines)
    func axeFindsNoViolationInTheResults(_ engine: BrowserEngine) async throws {
      let pool = try EngineFixture.require()
      let axe = try AxeCore.source()
      let options = BrowserSessionOptions(engine: engine).with { $0.reducedMotion = true }
      try await withBrowserSession(options: options) { session in
        try await Reader.openSearch(session, pool.processes)
        try await Reader.scroll(session, toRows: 40)
        try await session.executeAsyncScript(Reader.scrollCardToTop, args: [21, 0])
        try await session.waitForScript(
          """
          Array.from(document.querySelectorAll('[role=feed] article')).filter((a) => {
            const r = a.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight;
          }).every((a) => a.querySelector('[data-stargazers] [data-state]'))
          """, description: "\(engine): the histories on screen", timeout: .seconds(20))
        let violations = try await AxeCore.run(in: session, source: axe)
        expectTrue(violations.isEmpty, "\(engine): \(violations)")
      }
    }
  }
}
