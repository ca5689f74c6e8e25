import GitHub
import HTTP

/// Which list a page or fragment shows: a search, or one owner's repositories by stars. Both run on
/// the same Paging machinery and templates; they differ in the upstream query and their URLs.
enum ListKind: Sendable, Hashable {
  /// A repository search as typed in the form.
  case search(SearchQuery)
  /// The repositories of one owner (a valid login), most starred first.
  case owner(String)

  /// The GitHub search that feeds the list.
  var query: SearchQuery {
    switch self {
    case .search(let query): return query
    case .owner(let login): return SearchQuery(text: "user:\(login)", sort: .stars, order: .desc)
    }
  }

  /// The no-JS full page of batch `page` (1-based); page 1 has no `page` parameter.
  func pageURL(page: Int) -> String {
    switch self {
    case .search(let query):
      var items = Self.queryItems(query)
      if page > 1 { items.append(("page", String(page))) }
      return "/?" + URLEncoding.formatQuery(items)
    case .owner(let login):
      let path = "/owners/" + URLEncoding.percentEncode(login)
      return page > 1 ? path + "?page=\(page)" : path
    }
  }

  /// The fragment with the batch that starts at `after`.
  func fragmentURL(after: Int) -> String {
    switch self {
    case .search(let query):
      var items = Self.queryItems(query)
      items.append(("after", String(after)))
      return "/fragments/results?" + URLEncoding.formatQuery(items)
    case .owner(let login):
      return "/fragments/owners/" + URLEncoding.percentEncode(login) + "?after=\(after)"
    }
  }

  private static func queryItems(_ query: SearchQuery) -> [(String, String)] {
    var items: [(String, String)] = [("q", query.text)]
    if let sort = query.sort {
      items.append(("sort", sort.rawValue))
      items.append(("order", query.order.rawValue))
    }
    return items
  }
}
