/// One page of repository search results.
public struct SearchPage: Sendable {
  /// GitHub's total match count (searches beyond the first 1000 are not reachable).
  public var totalCount: Int
  /// True when GitHub's search timed out and the result may be partial.
  public var incompleteResults: Bool
  /// The repositories of this page, in GitHub's order.
  public var items: [Repository]
  /// `Link` header targets by relation (`next`, `last`, `prev`, `first`).
  public var links: [String: String]
  /// The page number requested (1-based).
  public var page: Int
  /// The page size requested.
  public var perPage: Int
  /// True when served from an expired cache entry because GitHub failed.
  public var isStale: Bool
  /// Malformed items left out of `items`.
  var skipped = Skipped()
  /// How many malformed items were left out of `items`.
  public var skippedItems: Int { skipped.count }

  /// A page from its parts.
  public init(
    totalCount: Int, incompleteResults: Bool, items: [Repository], links: [String: String], page: Int,
    perPage: Int, isStale: Bool = false
  ) {
    self.totalCount = totalCount
    self.incompleteResults = incompleteResults
    self.items = items
    self.links = links
    self.page = page
    self.perPage = perPage
    self.isStale = isStale
  }
}
