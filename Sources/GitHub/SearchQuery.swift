/// The sort field of a repository search; `nil` in `SearchQuery` means best match.
public enum SearchSort: String, Sendable, CaseIterable {
  /// By stargazer count.
  case stars
  /// By fork count.
  case forks
  /// By issues labelled help-wanted.
  case helpWantedIssues = "help-wanted-issues"
  /// By last update.
  case updated
}

/// The direction of a sorted search.
public enum SortOrder: String, Sendable, CaseIterable {
  /// Largest first (GitHub's default).
  case desc
  /// Smallest first.
  case asc
}

/// One repository search: GitHub query text (qualifiers allowed), sort and order.
public struct SearchQuery: Hashable, Sendable {
  /// The `q` text, e.g. `tetris language:assembly stars:>10`.
  public var text: String
  /// The sort field; nil for best match.
  public var sort: SearchSort?
  /// The order; only sent when `sort` is set (GitHub ignores it otherwise).
  public var order: SortOrder

  /// A query from its parts.
  public init(text: String, sort: SearchSort? = nil, order: SortOrder = .desc) {
    self.text = text
    self.sort = sort
    self.order = order
  }
}
