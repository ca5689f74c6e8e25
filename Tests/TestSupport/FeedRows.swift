import Foundation

/// Every row a results page has shown, for tests that check a whole list: the page keeps only the
/// cards near the reader in the document, so the list cannot be read from the document at the end.
/// `track` records the cards there now and every card inserted later (appended, or brought back when
/// the reader returns), by position; `collected` reads them back.
///
/// ```swift
/// try await FeedRows.track(session)          // right after the first batch is there
/// // … scroll …
/// let rows = try await FeedRows.collected(session)
/// #expect(rows.problems.isEmpty)
/// ```
public enum FeedRows {
  /// The rows seen, in position order, and what is wrong with them as one list.
  public struct Rows: Sendable {
    /// Each position's repository id (the first one seen there).
    public let ids: [String]
    /// Positions in order.
    public let positions: [Int]
    /// Positions that showed two different repositories, and repositories shown at two positions.
    public let conflicts: [String]
    /// Positions never seen between the first and the last one seen: neither in the document nor in a
    /// fragment the page received.
    public let gaps: [String]
    /// Conflicts and gaps: what a list read row by row must not have.
    public var problems: [String] { conflicts + gaps }
  }

  /// Installs the recorder in the current document (idempotent).
  public static let trackScript = """
    if (!window.__feedRows) {
      const rows = window.__feedRows = {};
      const record = (card) => {
        const position = card.getAttribute('aria-posinset');
        const ids = rows[position] || (rows[position] = []);
        if (!ids.includes(card.dataset.repoId)) ids.push(card.dataset.repoId);
      };
      const scan = (node) => {
        if (node.nodeType !== 1) return;
        if (node.matches('[role=feed] article[data-repo-id]')) record(node);
        node.querySelectorAll('[role=feed] article[data-repo-id]').forEach(record);
      };
      scan(document.body);
      new MutationObserver((records) => {
        for (const entry of records) entry.addedNodes.forEach(scan);
      }).observe(document.body, { childList: true, subtree: true });
      // A batch the page received but parked at once (the reader had jumped past it) never enters
      // the document: its cards are recorded from the fragment as it arrived.
      const fetched = window.fetch;
      window.fetch = (...args) => fetched(...args).then((response) => {
        const url = String(args[0] && args[0].url || args[0]);
        if (response.ok && url.includes('/fragments/') && !url.includes('/fragments/stars')) {
          response.clone().text().then((html) => {
            const t = document.createElement('template');
            t.innerHTML = html;
            t.content.querySelectorAll('article[data-repo-id]').forEach(record);
          }).catch(() => {});
        }
        return response;
      });
    }
    return true;
    """

  /// Installs the recorder in the session's current document.
  public static func track(_ session: BrowserSession) async throws {
    try await session.executeScript(trackScript)
  }

  /// What the recorder saw since `track`.
  public static func collected(_ session: BrowserSession) async throws -> Rows {
    let value = try await session.executeScript(
      """
      return Object.entries(window.__feedRows || {}).map(([p, ids]) => [Number(p), ids])
        .sort((a, b) => a[0] - b[0]);
      """)
    var ids: [String] = []
    var positions: [Int] = []
    var conflicts: [String] = []
    var gaps: [String] = []
    var seen: [String: Int] = [:]
    for entry in value.array ?? [] {
      let position = entry[0]?.int ?? 0
      let all = entry[1]?.array?.compactMap(\.string) ?? []
      if all.count > 1 { conflicts.append("position \(position) showed \(all)") }
      let id = all.first ?? ""
      if let earlier = seen[id] { conflicts.append("\(id) at \(earlier) and \(position)") }
      seen[id] = position
      let previous = positions.last ?? 0
      if position != previous + 1 { gaps.append("position \(position) after \(previous)") }
      ids.append(id)
      positions.append(position)
    }
    return Rows(
      ids: ids, positions: positions, conflicts: Array(conflicts.prefix(10)), gaps: Array(gaps.prefix(10)))
  }
}
