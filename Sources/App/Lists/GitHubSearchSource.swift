import Credentials
import GitHub
import Paging

/// GitHub's repository search as a Paging source: 100 results per upstream page, so N rows cost
/// ceil(N/100) search calls, and the 1000-result cap ends the list.
struct GitHubSearchSource: PageSource {
  /// GitHub's most results per search page.
  static let pageSize = 100
  /// GitHub hands out at most this many results per query.
  static let resultCap = 1000

  let client: GitHubClient
  let query: SearchQuery
  /// The signed-in reader whose token and rate limit the search goes on; nil for anonymous.
  var reader: ReaderCredential? = nil
  /// Told when GitHub refuses the reader's token, which it renews when it can; otherwise the page
  /// is read anonymously, so the list loses no rows while the route ends the session.
  var revocation: Revocation? = nil

  var upstreamPageSize: Int { Self.pageSize }

  func fetchPage(_ number: Int, reload: Bool) async throws -> SourcePage<Repository> {
    try await fetchPage(number, of: query, reload: reload)
  }

  /// Page `number` of another query (a window of this one), read the same way.
  func fetchPage(_ number: Int, of query: SearchQuery, reload: Bool) async throws -> SourcePage<Repository> {
    let page = try await search(query, number, reload: reload)
    return SourcePage(
      items: page.items, totalCount: page.totalCount, resultCap: Self.resultCap,
      incomplete: page.incompleteResults)
  }

  /// One search page as the reader (with their renewed token once GitHub refused the old one), or
  /// anonymously once their token cannot be used.
  private func search(_ query: SearchQuery, _ number: Int, reload: Bool) async throws(GitHubError)
    -> SearchPage
  {
    // An anonymous reader's page is asked for straight, without the local function a reader's
    // renewal goes through.
    guard let reader else {
      return try await client.searchRepositories(query, page: number, perPage: Self.pageSize, reload: reload)
    }
    func page(as credential: ReaderCredential?) async throws(GitHubError) -> SearchPage {
      try await client.searchRepositories(
        query, page: number, perPage: Self.pageSize, reload: reload, as: credential)
    }
    return try await (revocation ?? Revocation()).run(as: reader, page)
  }

  /// The largest star count on the page: a batch reports the largest over the pages up to it, the
  /// stars bars' scale (for a stars-descending list, the list's first row).
  func peak(of page: SourcePage<Repository>) -> Int {
    var largest = 0
    for index in page.items.indices where page.items[index].stargazersCount > largest {
      largest = page.items[index].stargazersCount
    }
    return largest
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
    case .unauthorized:
      // Only a reader's call meets this, and the source retries those anonymously first.
      return ListError(message: "GitHub did not accept the sign-in.", retryable: true)
    case .invalidInput(let message):
      return ListError(message: "This search cannot be run: \(message).", retryable: false)
    case .notFound:
      return ListError(message: "GitHub found nothing for this search.", retryable: false)
    }
  }
}
