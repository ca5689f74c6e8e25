import GitHub
import HTTP

/// The search form's fields as a request carries them, validated.
struct SearchParameters: Sendable {
  /// Longest query GitHub accepts.
  static let maxQueryLength = 256

  /// The query as typed (trimmed); empty means the landing page.
  var q: String
  /// The sort field; nil is best match.
  var sort: SearchSort?
  /// The order.
  var order: SortOrder
  /// What was wrong with the fields, phrased for the page; nil when they are usable.
  var problem: String?

  /// The `after` parameter as sent, if any (read in the same pass, for fragments).
  var after: String?
  /// The `page` parameter as sent, if any.
  var page: String?

  /// Reads `q`, `sort`, `order`, `after` and `page` from the query string in one pass.
  init(_ request: HTTPRequest) {
    var q = ""
    var sortText = ""
    var orderText = ""
    for item in request.queryItems {
      switch item.name {
      case "q": q = item.value
      case "sort": sortText = item.value
      case "order": orderText = item.value
      case "after": after = item.value
      case "page": page = item.value
      default: break
      }
    }
    self.q = String(q.trimmingWhitespace)
    sort = nil
    order = .desc
    problem = nil
    if self.q.count > Self.maxQueryLength {
      problem = "Queries are limited to \(Self.maxQueryLength) characters; this one has \(self.q.count)."
    }
    if !sortText.isEmpty && sortText != "best-match" {
      if let parsed = SearchSort(rawValue: sortText) {
        sort = parsed
      } else if problem == nil {
        problem = "Results can be sorted by stars, forks, help-wanted issues or last update only."
      }
    }
    if !orderText.isEmpty {
      if let parsed = SortOrder(rawValue: orderText) {
        order = parsed
      } else if problem == nil {
        problem = "The order must be descending or ascending."
      }
    }
  }

  /// The search to run, when there is one and it is valid.
  var query: SearchQuery? {
    guard problem == nil, !q.isEmpty else { return nil }
    return SearchQuery(text: q, sort: sort, order: order)
  }
}
