import Foundation
import TestSupport
import Testing

/// What the reader-facing suites share: processes, sessions, page scripts and screenshots.
enum Reader {
  /// A long list (every catalog repository matches, GitHub's 1,000 cap applies), sorted by stars.
  static let query = "q=stars%3A%3E%3D0&sort=stars&order=desc"
  /// Cards per batch the app runs with.
  static let batchSize = 20
  /// A fast double with budgets that never run out unless a test says so.
  static let doubleArguments = ["--latency", "10..60", "--search-limit", "10000", "--core-limit", "100000"]

  /// Runs `body` with a fresh double and app (extra double flags appended).
  static func withApp<T>(
    double extra: [String] = [], _ body: (AppProcesses) async throws -> T
  ) async throws -> T {
    try await AppProcesses.with(
      doubleArguments: doubleArguments + extra, appArguments: ["--batch-size", String(batchSize)], body)
  }

  /// Chromium session options for a window size, with optional extra Chromium switches.
  static func options(width: Int = 1280, height: Int = 900, extra: [String] = []) -> BrowserSessionOptions {
    var options = BrowserSessionOptions()
    options.width = width
    options.height = height
    options.arguments += extra
    return options
  }

  /// A phone viewport, 390×844 unless told (headless Chromium will not make a window narrower than 500 px).
  static func phone(_ session: BrowserSession, width: Int = 390) async throws {
    try await session.setViewport(width: width, height: 844)
  }

  /// Options for a phone `width` px wide in `engine`, and whether `phone(_:width:)` must follow.
  /// Chromium and Firefox keep windows at least 500 px wide: their viewport is set narrower. MiniBrowser
  /// cannot go below about 447 px and has no viewport emulation: the 430 px case gets its narrowest
  /// window, the narrower ones `nil`.
  static func phoneOptions(_ engine: BrowserEngine, width: Int) -> (
    options: BrowserSessionOptions, emulate: Bool
  )? {
    var options = BrowserSessionOptions(engine: engine)
    options.height = 844
    switch engine {
    case .chromium, .firefox:
      options.width = max(width, 500)
      return (options, true)
    case .webkit:
      // The widest phone case stands for all of them, at the narrowest window there is.
      options.width = webKitNarrowest
      return width == 430 ? (options, false) : nil
    }
  }

  /// MiniBrowser's narrowest window here (its toolbar's minimum), in CSS pixels.
  static let webKitNarrowest = 447

  /// Animations off, so what axe and the screenshots see is the settled page.
  static func reduceMotion(_ session: BrowserSession, dark: Bool = false) async throws {
    var features: [WebDriverJSON] = [["name": "prefers-reduced-motion", "value": "reduce"]]
    if dark { features.append(["name": "prefers-color-scheme", "value": "dark"]) }
    try await session.cdp("Emulation.setEmulatedMedia", ["features": .array(features)])
  }

  // MARK: Scripts

  /// Cards in the document: only the ones near the reader (the page keeps at most `cap`).
  static let cardCount = "document.querySelectorAll('[role=feed] article[data-repo-id]').length"
  /// True once the page's modules have run (feed.js marks the document `html.js` as it wires the page).
  static let modulesRun = "document.documentElement.classList.contains('js')"
  /// Rows in the list, in the document or not (the page's own count, `#results[data-rows]`; the cards
  /// in the document on a page from before it kept one, as script/bench-paint's base may be).
  static let rowCount =
    "Number((document.getElementById('results') || { dataset: {} }).dataset.rows || \(cardCount))"
  /// The most cards the page keeps in the document (virtual.js's `LIMITS.cap`).
  static let cap = 200

  /// The lower edge of the header where it covers the top of the viewport, else 0 (as place.js reads it).
  static let headerEdge = """
    const header = document.querySelector('.site-header');
    const edge = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    """

  /// The first card below the header (as place.js defines it) and its top edge in the viewport.
  static let topCard =
    headerEdge + """
      const card = Array.from(document.querySelectorAll('[role=feed] article[data-repo-id]'))
        .find((a) => a.getBoundingClientRect().bottom > edge + 1);
      return card ? [Number(card.getAttribute('aria-posinset')), card.getBoundingClientRect().top] : null;
      """

  /// (Async) Puts card `arguments[0]` `arguments[1]` px below the viewport's top, arriving from above
  /// in a second scroll (so that the header, which comes back on a scroll up, goes away), and resolves
  /// once the header has stopped sliding.
  static let scrollCardToTop = """
    const done = arguments[arguments.length - 1];
    const card = document.querySelector('[role=feed] article[aria-posinset="' + arguments[0] + '"]');
    const y = card.getBoundingClientRect().top + window.scrollY - arguments[1];
    const header = document.querySelector('.site-header');
    const settled = () => !header || ['flow', 'shown'].includes(header.dataset.header || 'flow');
    const frames = (n, then) => requestAnimationFrame(() => (n > 1 ? frames(n - 1, then) : then()));
    const wait = () => (settled() ? done(true) : frames(1, wait));
    window.scrollTo(0, Math.max(0, y - 300));
    frames(2, () => { window.scrollTo(0, y); frames(2, wait); });
    """

  /// Scrolls toward card `position` until it is in the document (the page keeps only the cards near
  /// the reader, so after a scroll to the end a card a few screens up may be parked). Each step puts
  /// the edge of the cards in the document nearest the card at mid-screen, never past it: a page that
  /// brings rows back late (its ticks lag in an engine starved of CPU) is waited for, not overtaken.
  /// (Scrolling up 400 px a poll, the test timed out in a CI run at load 10.)
  static func bringCard(_ session: BrowserSession, _ position: Int) async throws {
    try await session.waitForScript(
      """
      (() => {
        if (document.querySelector('[role=feed] article[aria-posinset="\(position)"]')) return true;
        const cards = document.querySelectorAll('[role=feed] article[data-repo-id]');
        if (!cards.length) return false;
        const up = Number(cards[0].getAttribute('aria-posinset')) > \(position);
        const edge = (up ? cards[0] : cards[cards.length - 1]).getBoundingClientRect().top - innerHeight / 2;
        window.scrollBy(0, up ? Math.min(-1, edge) : Math.max(1, edge));
        return false;
      })()
      """, description: "\(session.engine): card \(position) in the document", timeout: .seconds(15),
      poll: .milliseconds(150))
  }

  /// Puts card `position` `offset` px below the viewport's top (`scrollCardToTop`), bringing it into
  /// the document first. Under load a scroll tick can park the card between two script calls: it is
  /// brought back and tried again, up to three times.
  static func putCardAtTop(_ session: BrowserSession, _ position: Int, offset: Double = 0) async throws {
    for attempt in 1...3 {
      try await bringCard(session, position)
      do {
        try await session.executeAsyncScript(
          scrollCardToTop, args: [.number(Double(position)), .number(offset)])
        return
      } catch  where attempt < 3 {
        print("\(session.engine): card \(position) left the document before it was scrolled to (\(error))")
      }
    }
  }

  /// Chromium: starts summing the layout shifts (without recent input) from now on, in
  /// `window.__shift`, with the shifted nodes in `window.__shifted` (the load itself is left out:
  /// localtime.js rewrites the first screen's relative times, which may move a topic by a pixel).
  static let watchLayoutShift = """
    window.__shift = 0;
    window.__shifted = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.hadRecentInput) continue;
        window.__shift += e.value;
        for (const s of e.sources) window.__shifted.push(s.node ? (s.node.outerHTML || s.node.textContent || '').slice(0, 80) : '?');
      }
    }).observe({ type: 'layout-shift' });
    return true;
    """

  /// (Async) Chromium: the layout shift since `watchLayoutShift`, and what moved, two frames from now
  /// (once the observer has been given the last entries).
  static let layoutShift = """
    const done = arguments[0];
    requestAnimationFrame(() => requestAnimationFrame(() => done({ value: window.__shift, nodes: window.__shifted.slice(0, 5) })));
    """

  /// True once the header is not sliding (and, when scrolled down, out of the way).
  static let headerSettled =
    "['flow', 'shown'].includes(document.querySelector('.site-header').dataset.header)"

  /// Waits until the page is at rest with card `position` saved as the top one: the header settled,
  /// `history.state` holding the card, no batch and no avatar or history in flight (Firefox keeps no
  /// page with a request in flight at pagehide in its back/forward cache).
  static func settle(_ session: BrowserSession, top position: Int) async throws {
    try await session.waitForScript(headerSettled, timeout: .seconds(10))
    try await waitForSavedTop(session, position)
    try await session.waitForScript(
      "document.getElementById('feed').getAttribute('aria-busy') === 'false'", timeout: .seconds(30))
    try await session.waitForScript(
      #"document.querySelectorAll('[data-state="loading"]').length === 0"#, timeout: .seconds(30))
  }

  /// Waits until `history.state` holds card `position` as the top one.
  static func waitForSavedTop(_ session: BrowserSession, _ position: Int) async throws {
    try await session.waitForScript(
      "history.state && history.state.reposcroll && history.state.reposcroll.top === \(position)",
      description: "\(session.engine): card \(position) saved as the top one", timeout: .seconds(10))
  }

  /// Marks the document, opens another search (a results page of its own: the case that lost
  /// WebKit's `history.state`) and goes back. Returns the app's fragment requests before going back;
  /// `sameDocument` then tells whether the page came from the back/forward cache.
  static func leaveForAnotherSearchAndGoBack(_ session: BrowserSession, _ p: AppProcesses) async throws
    -> Int
  {
    try await session.executeScript("window.__sameDocument = true;")
    try await session.navigate(to: p.baseURL + "/?q=language%3Aswift")
    try await session.waitForScript("\(cardCount) > 0", timeout: .seconds(15))
    let requestsBefore = try await requests(route: "fragment", p)
    try await session.back()
    return requestsBefore
  }

  /// True when the document is the one `leaveForAnotherSearchAndGoBack` marked.
  static let sameDocument = "return window.__sameDocument === true;"

  /// Opens the long list and waits for its first batch and for the page's modules (`html.js`).
  static func openSearch(_ session: BrowserSession, _ p: AppProcesses) async throws {
    try await session.navigate(to: p.baseURL + "/?" + query)
    try await session.waitForScript(
      "\(cardCount) >= \(batchSize) && \(modulesRun)",
      description: "\(session.engine): the first batch, with the page's modules running",
      timeout: .seconds(15))
  }

  /// Scrolls to the bottom until the list holds at least `rows` rows; returns the count.
  @discardableResult
  static func scroll(_ session: BrowserSession, toRows rows: Int) async throws -> Int {
    var count = try await session.executeScript("return \(rowCount);").int ?? 0
    while count < rows {
      try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
      let grown = try await session.waitForScript(
        "\(rowCount) > \(count) && \(rowCount)", description: "more than \(count) rows",
        timeout: .seconds(15),
        poll: .milliseconds(50))
      count = grown.int ?? count
    }
    return count
  }

  /// The cards in the document, checked (as expectations): no duplicate, consecutive positions, and
  /// no more than the cap.
  @discardableResult
  static func checkedCards(_ session: BrowserSession) async throws -> [(id: String, position: Int)] {
    let rows = try await session.executeScript(ProductPageScripts.cards).array ?? []
    let cards = rows.map { (id: $0[0]?.string ?? "", position: $0[1]?.int ?? 0) }
    let ids = cards.map(\.id)
    expectEqual(Set(ids).count, ids.count, "\(session.engine): duplicate data-repo-id")
    expectTrue(!ids.contains(""), "\(session.engine): a card without data-repo-id")
    let first = cards.first?.position ?? 1
    expectEqual(
      cards.map(\.position), Array(first..<(first + cards.count)), "\(session.engine): posinset gap")
    expectTrue(cards.count <= cap, "\(session.engine): \(cards.count) cards in the document")
    return cards
  }

  /// The card at the top and its offset, or nil.
  static func top(_ session: BrowserSession) async throws -> (position: Int, offset: Double)? {
    let value = try await session.executeScript(topCard)
    guard let pair = value.array, pair.count == 2, let position = pair[0].int else { return nil }
    return (position, pair[1].double ?? 0)
  }

  /// Where screenshots go: REPOSCROLL_SCREENSHOTS, else .build/screenshots in the package (not
  /// .build/artifacts, which SwiftPM empties when it builds).
  static func screenshotFolder() throws -> String {
    if let folder = ProcessInfo.processInfo.environment["REPOSCROLL_SCREENSHOTS"], !folder.isEmpty {
      return folder
    }
    return try ProcessRunner.packageRoot() + "/.build/screenshots"
  }

  /// Saves a screenshot as `name`.png in `screenshotFolder()` and prints its path (a test artifact).
  static func screenshot(_ session: BrowserSession, _ name: String) async throws {
    let folder = try screenshotFolder()
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let png = try await session.screenshot()
    let path = folder + "/" + name + ".png"
    try Data(png).write(to: URL(fileURLWithPath: path))
    print("screenshot: \(path)")
  }

  /// The app's request count for one metrics route (all statuses).
  static func requests(route: String, _ p: AppProcesses) async throws -> Int {
    let reply = try await WebDriverLoopbackHTTP.exchange(
      port: p.appPort, method: "GET", path: "/metrics", body: nil, timeout: .seconds(5))
    var total = 0
    for line in reply.text.split(separator: "\n")
    where line.hasPrefix("reposcroll_http_requests_total{route=\"\(route)\",") {
      total += Int(line.split(separator: " ").last ?? "") ?? 0
    }
    return total
  }
}
