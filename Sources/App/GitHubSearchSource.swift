import GitHub
import Paging
import Synchronization

/// GitHub's repository search as a Paging source: 100 results per upstream page, so N rows cost
/// ceil(N/100) search calls, and the 1000-result cap ends the list.
struct GitHubSearchSource: PageSource {
  /// GitHub's most results per search page.
  static let pageSize = 100
  /// GitHub hands out at most this many results per query.
  static let resultCap = 1000

  let client: GitHubClient
  let query: SearchQuery
  /// The largest star count on any page read for this batch, to scale the stars bars. The list walks
  /// from page 1 for every batch, so for a stars-descending list this is the list's first row.
  let largestStars = LargestValue()
  /// How many results GitHub reports for the query (its `total_count`, before the 1000 cap).
  let totalCount = LargestValue()

  var upstreamPageSize: Int { Self.pageSize }

  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Repository> {
    let page = try await client.searchRepositories(
      query, page: number, perPage: Self.pageSize, reload: reload)
    var largest = 0
    for item in page.items where item.stargazersCount > largest { largest = item.stargazersCount }
    largestStars.raise(to: largest)
    totalCount.raise(to: page.totalCount)
    return SourcePage(
      items: page.items, totalCount: page.totalCount, resultCap: Self.resultCap,
      incomplete: page.incompleteResults)
  }

  /// Sorts a failure into retryable or not, with a message fit for the page and, for rate limits,
  /// the time the list may continue.
  static func classify(_ error: any Error) -> ListError {
    guard let error = error as? GitHubError else {
      return ListError(message: "Something went wrong while loading results.", retryable: true)
    }
    switch error {
    case .rateLimited(_, let until, _):
      return ListError(message: "GitHub’s rate limit was reached.", retryable: true, retryAfter: until)
    case .network, .cancelled:
      return ListError(message: "GitHub could not be reached.", retryable: true)
    case .upstream(let status):
      return ListError(message: "GitHub answered with an error (\(status)).", retryable: status >= 500)
    case .decoding:
      return ListError(message: "GitHub sent an incomplete answer.", retryable: true)
    case .validation(let message):
      return ListError(message: message, retryable: false)
    case .forbidden(let message):
      return ListError(message: "GitHub refused the search: \(message)", retryable: false)
    case .invalidInput(let message):
      return ListError(message: "This search cannot be run: \(message).", retryable: false)
    case .notFound:
      return ListError(message: "GitHub found nothing for this search.", retryable: false)
    }
  }
}

/// A shared maximum (a class, because an atomic cannot live in a copyable struct).
final class LargestValue: Sendable {
  private let atomic = Atomic<Int>(0)

  /// The largest value seen.
  var value: Int { atomic.load(ordering: .relaxed) }

  /// Raises the value to at least `value`.
  func raise(to candidate: Int) {
    var current = atomic.load(ordering: .relaxed)
    while candidate > current {
      let (exchanged, original) = atomic.compareExchange(
        expected: current, desired: candidate, ordering: .relaxed)
      if exchanged { return }
      current = original
    }
  }
}
