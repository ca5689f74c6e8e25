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
      return Self.searchURL("/?", query, page > 1 ? ("&page=", page) : nil)
    case .owner(let login):
      let path = "/owners/" + URLEncoding.percentEncode(login)
      return page > 1 ? path + "?page=\(page)" : path
    }
  }

  /// The fragment with the batch that starts at `after`.
  func fragmentURL(after: Int) -> String {
    switch self {
    case .search(let query):
      return Self.searchURL("/fragments/results?", query, ("&after=", after))
    case .owner(let login):
      return "/fragments/owners/" + URLEncoding.percentEncode(login) + "?after=\(after)"
    }
  }

  /// `prefix` then `q`, `sort` and `order` (when sorted) and the number parameter `last`, written
  /// into one buffer (every trigger writes two of these).
  private static func searchURL(_ prefix: StaticString, _ query: SearchQuery, _ last: (StaticString, Int)?)
    -> String
  {
    var out: [UInt8] = []
    out.reserveCapacity(64 + query.text.utf8.count * 3)
    func append(_ text: StaticString) {
      out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
    append(prefix)
    append("q=")
    URLEncoding.percentEncode(query.text) { out.append($0) }
    if let sort = query.sort {
      append("&sort=")
      URLEncoding.percentEncode(sort.rawValue) { out.append($0) }
      append("&order=")
      URLEncoding.percentEncode(query.order.rawValue) { out.append($0) }
    }
    if let (name, value) = last {
      append(name)
      out.append(contentsOf: String(value).utf8)
    }
    return String(decoding: out, as: UTF8.self)
  }
}
