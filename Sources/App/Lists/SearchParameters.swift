import Encodings
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
  /// The window parameters as sent (`ListCursor.parse` reads them).
  var window = ListCursor.Fields()

  /// Reads `q`, `sort`, `order`, `after`, `page` and the window parameters from the query string in
  /// one pass, decoding only those (a later duplicate wins, as before).
  init(_ request: HTTPRequest) {
    var q = ""
    var sortText = ""
    var orderText = ""
    var afterText: String?
    var pageText: String?
    var window = ListCursor.Fields()
    if let query = request.query {
      URLEncoding.forEachQueryItem(query) { rawName, rawValue in
        guard let name = Self.name(rawName),
          let value = URLEncoding.percentDecode(rawValue, plusAsSpace: true)
        else { return }
        switch name {
        case .q: q = value
        case .sort: sortText = value
        case .order: orderText = value
        case .after: afterText = value
        case .page: pageText = value
        case .key(let key): window.keys[key] = value
        case .created: window.created = value
        case .skip: window.skip = value
        case .of: window.of = value
        }
      }
    }
    self.q = String(q.trimmingWhitespace)
    after = afterText
    page = pageText
    self.window = window
    sort = nil
    order = .desc
    problem = nil
    // Characters, not bytes, are limited; a query of at most that many bytes is within it uncounted.
    if self.q.utf8.count > Self.maxQueryLength, self.q.count > Self.maxQueryLength {
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

  /// The parameters read here.
  private enum Name { case q, sort, order, after, page, key(String), created, skip, of }

  /// Which of the parameters read here `raw` names once decoded, if any; a name without escapes is
  /// compared as it is.
  private static func name(_ raw: Span<UInt8>) -> Name? {
    guard let decoded = URLEncoding.percentDecode(raw, plusAsSpace: true) else { return nil }
    switch decoded {
    case "q": return .q
    case "sort": return .sort
    case "order": return .order
    case "after": return .after
    case "page": return .page
    case "stars", "forks", "help-wanted-issues": return .key(decoded)
    case "created": return .created
    case "skip": return .skip
    case "of": return .of
    default: return nil
    }
  }

  /// The search to run, when there is one and it is valid.
  var query: SearchQuery? {
    guard problem == nil, !q.isEmpty else { return nil }
    return SearchQuery(text: q, sort: sort, order: order)
  }
}
