import GitHub
import Paging

/// A search read by windows past GitHub's 1,000-result cap (`KeysetList`): each window is the query
/// with a range on the sort key, and inside a tie bucket a `created:` slice (`SearchWindow`), read
/// through the same client, reader and revocation as the search itself.
struct GitHubWindowSource: WindowSource {
  /// The search; its query is the reader's.
  let search: GitHubSearchSource
  /// The key the windows go by.
  let key: SearchSort
  let descending: Bool
  /// The search's query taken apart for windows of `key`, once for the list (`ListKind.windows`).
  let base: WindowBase
  /// Whether the first window is the reader's query as typed (a list in its own order: the same page
  /// as before windows, cached under the same key), rather than the query sorted by the key (a
  /// continuation after GitHub's own first 1,000).
  let firstIsPlain: Bool

  var pageSize: Int { GitHubSearchSource.pageSize }
  var resultCap: Int { GitHubSearchSource.resultCap }
  /// Counts are never negative; a billion passes any real one.
  var keys: ClosedRange<Int> { 0...1_000_000_000 }
  /// Search items carry stars and forks, but not their help-wanted issues.
  var keysVisible: Bool { key != .helpWantedIssues }

  func fetch(_ window: KeyWindow, page: Int, reload: Bool) async throws -> SourcePage<Repository> {
    if window == .first && firstIsPlain { return try await search.fetchPage(page, reload: reload) }
    let query: SearchQuery?
    do {
      query = try base.query(
        keys: QualifierBounds(lower: window.keys.lower, upper: window.keys.upper),
        created: window.slice.map { QualifierBounds(lower: $0.lower, upper: $0.upper) },
        order: descending ? .desc : .asc)
    } catch {
      throw GitHubError.invalidInput("this search cannot be read past GitHub’s first 1,000 results")
    }
    // Nothing can match (the reader's own range excludes the window): no call.
    guard let query else { return SourcePage(items: [], totalCount: 0, resultCap: resultCap) }
    return try await search.fetchPage(page, of: query, reload: reload)
  }

  /// The key of `item`: its forks or its stars (help-wanted issues are not in search items:
  /// `keysVisible`).
  func key(of item: Repository) -> Int { key == .forks ? item.forksCount : item.stargazersCount }

  func created(of item: Repository) -> Int { item.createdSeconds }

  func keys(of items: [Repository]) -> [Int] {
    key == .forks ? items.map { $0.forksCount } : items.map { $0.stargazersCount }
  }

  func createdTimes(of items: [Repository]) -> [Int] { items.map { $0.createdSeconds } }

  func peak(of page: SourcePage<Repository>) -> Int { search.peak(of: page) }
}
