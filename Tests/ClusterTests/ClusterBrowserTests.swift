import Foundation
import TestSupport
import Testing

/// A reader scrolling in Chromium through nginx while one instance dies under them (in the
/// serialized cluster suite, so two clusters never compete for the machine).
extension ClusterTests {
  /// Rows in the list (the document holds only the cards near the reader).
  static let cardCount = "Number(document.getElementById('results')?.dataset.rows || 0)"
  static let retryButton = """
    return Array.from(document.querySelectorAll('button'))
      .find((b) => /^\\s*retry/i.test(b.textContent)) || null;
    """

  /// Scrolls to the end of the page and waits until more than `count` cards are shown; returns how many.
  static func scrollToEnd(_ session: BrowserSession, past count: Int) async throws -> Int {
    try await session.executeScript("window.scrollTo(0, document.documentElement.scrollHeight);")
    return try await session.waitForScript(
      "\(cardCount) > \(count) && \(cardCount)", description: "more than \(count) cards",
      timeout: .seconds(15), poll: .milliseconds(50)
    ).int ?? 0
  }

  /// The list a reader sees after 1,000 rows: every row once, positions 1…1000, no error row (each row
  /// recorded as it came: `FeedRows.track` after the first batch).
  static func expectCompleteList(_ session: BrowserSession) async throws {
    // The last batch counted may not have entered the document yet.
    _ = try await session.waitForScript(
      "Object.keys(window.__feedRows || {}).length >= 1000", description: "1,000 rows recorded",
      timeout: .seconds(15), poll: .milliseconds(50))
    let rows = try await FeedRows.collected(session)
    // The list goes on past row 1,000 (by stars after GitHub's own first 1,000), and the page may
    // already hold a batch beyond it: the first 1,000 are judged.
    let first = Array(rows.ids.prefix(1_000))
    expectTrue(first.count == 1_000 && Set(first).count == 1_000, "no duplicate rows")
    expectEqual(Array(rows.positions.prefix(1_000)), Array(1...1_000), "positions run 1…1000 without a gap")
    expectTrue(rows.problems.isEmpty, "\(rows.problems)")
    expectTrue(try await session.executeScript(retryButton).isNull, "no error row remains")
  }

  @Test func anInstanceKilledMidScrollLeavesACompleteListWithoutErrorRows() async throws {
    let cluster = try await Cluster.start(withNginx: true)
    let victim = cluster.instances[1]
    try await withChromeSession { session in
      try await session.navigate(to: "http://127.0.0.1:\(cluster.nginxPort)/?q=stars%3A%3E10")
      var count = try await session.waitForScript(Self.cardCount, timeout: .seconds(15)).int ?? 0
      try await FeedRows.track(session)
      var killed = false
      while count < 1_000 {
        if count >= 300, !killed {
          _ = await victim.terminate(signal: SIGKILL)
          killed = true
        }
        count = try await Self.scrollToEnd(session, past: count)
      }
      expectTrue(killed)
      try await Self.expectCompleteList(session)
    }
    // Ten pages; the killed instance may have died holding a page's lock, which its successor then
    // fetches; and the page asks ahead past row 1,000, where best match goes on by stars (finding
    // where the continuation starts takes at most 4 counts, then its first window). Fetching the
    // pages twice would cost 20 or more.
    let calls = try await cluster.searchCalls()
    expectTrue((10...16).contains(calls), "\(calls) search calls")
    await cluster.stop()
  }
}

extension ClusterTests {
  @Test func aRollingRestartMidScrollLeavesACompleteListWithoutErrorRows() async throws {
    let cluster = try await Cluster.start(withNginx: true)
    var replacements: [ProcessRunner] = []
    try await withChromeSession { session in
      try await session.navigate(to: "http://127.0.0.1:\(cluster.nginxPort)/?q=stars%3A%3E10")
      var count = try await session.waitForScript(Self.cardCount, timeout: .seconds(15)).int ?? 0
      try await FeedRows.track(session)
      var restart: Task<[ProcessRunner], any Error>?
      while count < 1_000 {
        if count >= 200, restart == nil {
          // Every instance replaced one by one while the reader keeps scrolling.
          restart = Task {
            var fresh: [ProcessRunner] = []
            for (index, old) in cluster.instances.enumerated() {
              fresh.append(try await cluster.replace(index, old: old))
            }
            return fresh
          }
        }
        count = try await Self.scrollToEnd(session, past: count)
      }
      replacements = try await restart?.value ?? []
      expectEqual(replacements.count, 3, "every instance was replaced")
      try await Self.expectCompleteList(session)
    }
    for instance in replacements { await instance.terminate() }
    await cluster.stop()
  }
}
