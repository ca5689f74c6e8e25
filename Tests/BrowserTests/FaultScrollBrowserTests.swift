import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// Upstream faults while a person scrolls, in real Chromium: the double answers 10% of
  /// requests with a 5xx and every request after 0.5–2 s, the search resource runs out once in the
  /// middle, and one outage is forced so an error row is certain. The reader scrolls to `rows` rows,
  /// clicking Retry whenever it shows. The list must equal a fault-free double's (same seed) in order,
  /// without duplicates or gaps, and after the App learned of the exhausted limit no search request
  /// may reach the double before the reset.
  @Suite("Upstream faults while scrolling", .timeLimit(.minutes(10)))
  struct FaultScrollBrowserTests {
    static let seed = "11"
    static let rows = 220
    /// The App's batch; GitHub pages hold 100, so rows 1–100, 101–200 and 201–220 need search pages 1–3.
    static let batchSize = 20
    /// The forced outage starts here: the next search call (page 2, at row 100) fails.
    static let outageAt = 80
    /// Seconds from setting the window to its reset: long enough that the next search request (after
    /// the reader's Retry or an automatic retry, and its 0.5–2 s latency) meets the exhausted window.
    static let windowSeconds = 10
    /// Best match: GitHub's own pages of 100, so the rows above map to pages 1–3 (an order read by
    /// windows of its key lists fewer rows a page, and its windows fall elsewhere).
    static let query = "q=stars%3A%3E%3D0"

    /// The feed and its tail, as the loop needs them.
    static let stateScript = """
      const tail = document.getElementById('feed-tail');
      const feed = document.querySelector('[role=feed]');
      const shown = (selector) => {
        const el = tail && tail.querySelector(selector);
        return !!el && el.getClientRects().length > 0;
      };
      return {
        cards: Number(document.getElementById('results').dataset.rows || 0),
        busy: !!feed && feed.getAttribute('aria-busy') === 'true',
        error: shown('.state-error'),
        limited: shown('.state-limited'),
      };
      """

    /// The visible Retry button of the tail, or null.
    static let retryScript = """
      const tail = document.getElementById('feed-tail');
      const button = tail && tail.querySelector('[data-retry]');
      return button && button.getClientRects().length > 0 ? button : null;
      """

    /// What happened on the way, for the assertions and the printed figures.
    private struct Journey {
      var errorRows = 0
      var limitedRows = 0
      var retryClicks = 0
      var outageStarted = false
      var outageEnded = false
      var windowSetMs = 0
      var windowReset = 0
      var cardsWhenErrorSeen: Int?
      var cardsWhenLimitedSeen: Int?
    }

    /// The first `count` repository ids of the query from a fault-free double with the same seed.
    private func referenceIDs(port: Int, count: Int, via p: AppProcesses) async throws -> [String] {
      var ids: [String] = []
      var page = 1
      while ids.count < count {
        let json = try await p.double(
          "GET", "/search/repositories?\(Self.query)&per_page=100&page=\(page)", port: port)
        let items = json["items"]?.array ?? []
        expectTrue(!items.isEmpty, "reference page \(page) is empty")
        if items.isEmpty { break }
        ids += items.compactMap { $0["id"]?.int.map(String.init) }
        page += 1
      }
      return Array(ids.prefix(count))
    }

    @Test func theListSurvivesFaultsAndARateLimitWindowIntact() async throws {
      let reference = try ProcessRunner(
        executable: try ProcessRunner.builtProduct("github-double"),
        arguments: ["--port", "0", "--seed", Self.seed, "--search-limit", "100000"], name: "reference-double")
      do {
        try await run(referencePort: try await reference.waitForListeningPort())
      } catch {
        await reference.terminate()
        throw error
      }
      await reference.terminate()
    }

    private func run(referencePort: Int) async throws {
      let doubleArguments = [
        "--seed", Self.seed, "--fault-rate", "0.1", "--latency", "500..2000", "--search-limit", "100000",
        "--core-limit", "1000000",
      ]
      // No read-ahead: the journey needs page 3 to be fetched when the reader reaches row 200.
      let appArguments = ["--batch-size", String(Self.batchSize), "--search-ttl", "600", "--read-ahead", "0"]
      try await AppProcesses.with(doubleArguments: doubleArguments, appArguments: appArguments) { p in
        var options = BrowserSessionOptions()
        options.pageLoadTimeout = .seconds(40)
        try await withBrowserSession(options: options) { session in
          let journey = try await scroll(session, p)
          try await check(session, p, journey, referencePort: referencePort)
        }
      }
    }

    /// Opens the list and scrolls to `rows`, driving the outage and the window and clicking Retry.
    private func scroll(_ session: BrowserSession, _ p: AppProcesses) async throws -> Journey {
      var journey = Journey()
      try await session.navigate(to: p.baseURL + "/?" + Self.query)
      // The document keeps only the cards near the reader: every row is recorded as it comes.
      try await FeedRows.track(session)
      let deadline = ContinuousClock.now + .seconds(80)
      var lastClick = ContinuousClock.now - .seconds(10)
      var outageSince = ContinuousClock.now
      var sawErrorShown = false
      var sawLimitedShown = false
      while true {
        let state = try await session.executeScript(Self.stateScript)
        let cards = state["cards"]?.int ?? 0
        let busy = state["busy"]?.bool ?? false
        let error = state["error"]?.bool ?? false
        let limited = state["limited"]?.bool ?? false
        if cards >= Self.rows && !busy { break }
        guard ContinuousClock.now < deadline else {
          if journey.outageStarted && !journey.outageEnded {
            try await p.double("POST", "/_double/faults?rate5xx=0.1")
          }
          Issue.record(
            "only \(cards) of \(Self.rows) rows within 80 s (error row \(error), limited row \(limited))")
          break
        }
        // Count each appearance of a row once.
        if error && !sawErrorShown {
          journey.errorRows += 1
          journey.cardsWhenErrorSeen = journey.cardsWhenErrorSeen ?? cards
        }
        if limited && !sawLimitedShown {
          journey.limitedRows += 1
          journey.cardsWhenLimitedSeen = journey.cardsWhenLimitedSeen ?? cards
        }
        sawErrorShown = error
        sawLimitedShown = limited

        // The forced outage: from row `outageAt` until an error row shows (or 20 s pass).
        if !journey.outageStarted && cards >= Self.outageAt && !busy && !error && !limited {
          try await p.double("POST", "/_double/faults?rate5xx=1")
          journey.outageStarted = true
          outageSince = .now
        } else if journey.outageStarted && !journey.outageEnded
          && (error || ContinuousClock.now - outageSince > .seconds(20))
        {
          try await p.double("POST", "/_double/faults?rate5xx=0.1")
          journey.outageEnded = true
          // The rate-limit window starts as the outage ends, so the next search call (page 2 again,
          // or page 3 at row 200 if an automatic retry came first) is refused. (Once set from row 180
          // with the list idle: a page that asks for the next batch as soon as one arrives is idle
          // there for too short a time, and a full run's loop never saw it so.)
          let now = Int(Date().timeIntervalSince1970)
          journey.windowSetMs = Int(Date().timeIntervalSince1970 * 1000)
          let window = try await p.double(
            "POST", "/_double/ratelimit?resource=search&remaining=0&reset=\(now + Self.windowSeconds)")
          journey.windowReset = window["reset"]?.int ?? 0
          expectEqual(journey.windowReset, now + Self.windowSeconds)
        }

        if (error || limited) && ContinuousClock.now - lastClick > .seconds(1.5) {
          // Retry as a reader would (outages only once the outage is over, so the click can succeed).
          if !journey.outageStarted || journey.outageEnded || limited,
            let button = WebDriverElement(json: try await session.executeScript(Self.retryScript))
          {
            do {
              try await session.click(button)
              journey.retryClicks += 1
            } catch let failure as WebDriverError {
              // The row may go away between finding and clicking (an automatic retry came first).
              if ![
                "stale element reference", "no such element", "element not interactable",
                "element click intercepted",
              ].contains(failure.errorCode ?? "") {
                throw failure
              }
            }
            lastClick = .now
          }
        } else if !busy && !error && !limited && cards < Self.rows {
          try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
        }
        // Real time: a reader's pace between looks at the list (the faults run on the clock too).
        try await Task.sleep(for: .milliseconds(250))
      }
      return journey
    }

    /// The list against the fault-free reference, and the double's request log against the window.
    private func check(_ session: BrowserSession, _ p: AppProcesses, _ journey: Journey, referencePort: Int)
      async throws
    {
      let rows = try await FeedRows.collected(session)
      let ids = rows.ids
      expectTrue(ids.count >= Self.rows)
      expectTrue(rows.problems.isEmpty, "duplicates or gaps: \(rows.problems)")
      let expected = try await referenceIDs(port: referencePort, count: ids.count, via: p)
      let firstDifference =
        (ids.indices.first { $0 >= expected.count || ids[$0] != expected[$0] } ?? ids.count) + 1
      expectEqual(ids, expected, "the list differs from the fault-free run from row \(firstDifference)")

      expectTrue(journey.outageStarted && journey.outageEnded)
      expectTrue(journey.errorRows >= 1, "an error row showed")
      expectTrue(journey.cardsWhenErrorSeen.map { $0 < ids.count } ?? false, "rows came after the error row")
      expectTrue(journey.windowSetMs > 0, "the rate-limit window was set")
      expectTrue(journey.limitedRows >= 1, "a rate-limit row showed")
      expectTrue(
        journey.cardsWhenLimitedSeen.map { $0 < ids.count } ?? false, "rows came after the limit row")

      let log = try await p.double("GET", "/_double/requests?endpoint=search")
      expectEqual(log["dropped"]?.int, 0)
      let searches = (log["requests"]?.array ?? []).map {
        (
          arrived: $0["arrived_ms"]?.int ?? 0, finished: $0["finished_ms"]?.int ?? 0,
          status: $0["status"]?.int ?? 0
        )
      }
      let resetMs = journey.windowReset * 1000
      let inWindow = searches.filter { $0.arrived >= journey.windowSetMs && $0.arrived < resetMs }
      let refusals = inWindow.filter { $0.status == 403 }
      expectEqual(refusals.count, 1, "exactly one search request learned of the limit: \(inWindow)")
      if let discovery = refusals.first {
        let after = inWindow.filter { $0.arrived > discovery.arrived }
        expectTrue(
          after.isEmpty, "search requests after the 403 and before the reset at \(resetMs): \(after)")
      }
      expectTrue(inWindow.allSatisfy { $0.status != 200 }, "the window held: \(inWindow)")
      expectTrue(
        searches.contains { $0.arrived >= resetMs && $0.status == 200 }, "the list continued after the reset")
    }
  }
}
