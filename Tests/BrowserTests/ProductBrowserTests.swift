import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The product scenarios in real Chromium against github-double and repo-scroll processes that the
  /// engine suites do not cover: upstream calls on reload, a fault and Retry, console errors and layout
  /// shifts (figures such as scroll timings and upstream calls per 100 rows come from script/bench-scroll).
  /// Growth, details, keys and no-JS run in every engine in EngineFlowBrowserTests.
  @Suite("Product in Chromium", .productFixture, .timeLimit(.minutes(10)))
  struct ProductBrowserTests {
    // MARK: Helpers

    /// Opens the search page fresh and waits for the first batch.
    private func openSearch(_ fixture: ProductFixture) async throws -> Int {
      try await fixture.session.navigate(to: fixture.searchURL)
      _ = try await fixture.session.browserLogs()
      let count = try await fixture.session.waitForScript(ProductPageScripts.cardCount, timeout: .seconds(10))
      return count.int ?? 0
    }

    /// Scrolls to the bottom and waits for more cards; returns the new count and the wait in ms.
    private func scrollForMore(_ session: BrowserSession, after count: Int) async throws -> (Int, Double) {
      let start = ContinuousClock.now
      try await session.executeScript(ProductPageScripts.scrollToBottom)
      let grown = try await session.waitForScript(
        "\(ProductPageScripts.rowCount) > \(count) && \(ProductPageScripts.rowCount)",
        description: "more than \(count) rows after scrolling", timeout: .seconds(10),
        poll: .milliseconds(20))
      let elapsed = ContinuousClock.now - start
      return (grown.int ?? 0, elapsed.asMilliseconds)
    }

    // MARK: Scenarios

    @Test func refreshPutsTheFirstBatchBackAtTheTop() async throws {
      let fixture = try ProductFixture.require()
      let session = fixture.session
      var count = try await openSearch(fixture)
      for _ in 0..<2 { (count, _) = try await scrollForMore(session, after: count) }
      let before = try await fixture.upstreamCalls().search
      try await session.refresh()
      try await session.waitForScript(ProductPageScripts.cardCount)
      try await expectEqual(session.executeScript("return window.scrollY;").int, 0)
      let first = try await Reader.checkedCards(session).first
      expectEqual(first?.position, 1)
      expectTrue(try await fixture.upstreamCalls().search > before, "a reload re-fetches page 1 upstream")
    }

    @Test func anInjectedFaultShowsRetryWhichRecoversWithoutLosingRows() async throws {
      let fixture = try ProductFixture.require()
      let session = fixture.session
      var count = try await openSearch(fixture)
      (count, _) = try await scrollForMore(session, after: count)
      try await fixture.double("POST", "/_double/faults?rate5xx=1")
      let retry: WebDriverElement
      do {
        retry = try await waitForValue(
          "the error row's Retry button", timeout: .seconds(15), poll: .milliseconds(300)
        ) {
          try await session.executeScript(ProductPageScripts.scrollToBottom)
          return WebDriverElement(json: try await session.executeScript(ProductPageScripts.retryButton))
        }
      } catch {
        try await fixture.double("POST", "/_double/faults?rate5xx=0")
        throw error
      }
      try await Reader.checkedCards(session)
      let kept = try await session.executeScript("return \(ProductPageScripts.rowCount);").int ?? 0
      expectTrue(kept >= count, "rows loaded before the fault stay")
      try await fixture.double("POST", "/_double/faults?rate5xx=0")
      // Transient errors also retry by themselves with backoff; click before that kicks in, and accept
      // a button that already went away because the automatic retry won the race: removed, or hidden
      // while the retry's skeletons show ("element not interactable", seen in a full run at load 11).
      do {
        try await session.click(retry)
      } catch let error as WebDriverError
        where ["stale element reference", "no such element", "element not interactable"].contains(
          error.errorCode)
      {
        // The automatic retry came first; the rows below must arrive all the same.
      }
      try await session.waitForScript(
        "\(ProductPageScripts.rowCount) > \(kept)", description: "rows after Retry", timeout: .seconds(10))
      try await Reader.checkedCards(session)
      expectTrue(
        try await session.executeScript(ProductPageScripts.retryButton).isNull, "the error row is gone")
      _ = try await session.browserLogs()
    }

    @Test func scrollingRaisesNoConsoleErrorsAndShiftsNoLayout() async throws {
      let fixture = try ProductFixture.require()
      let session = fixture.session
      var count = try await openSearch(fixture)
      for _ in 0..<5 { (count, _) = try await scrollForMore(session, after: count) }
      // Late shifts and errors (avatars and histories arriving) get their chance to happen: every
      // avatar and history request has ended (details.js marks one in flight `data-state="loading"`),
      // and two frames are painted after.
      try await session.waitForScript(
        "!document.querySelector('#results [data-state=\"loading\"]')",
        description: "avatars and histories arrived", timeout: .seconds(20))
      try await session.executeAsyncScript(EngineFlowBrowserTests.twoFrames)
      let probe = try await session.pageProbe()
      let logs = try await session.browserLogs().filter(\.isError)
      expectTrue(logs.isEmpty, "console errors: \(logs.map(\.message))")
      expectTrue(probe.consoleErrors.isEmpty, "page errors: \(probe.consoleErrors)")
      expectTrue(probe.cumulativeLayoutShift < 0.01)
    }

  }
}

extension Duration {
  /// The duration in milliseconds, for printed figures.
  fileprivate var asMilliseconds: Double {
    let parts = components
    return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
  }
}
