import Encodings
import GitHub
import HTTP
import Mustache

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
  /// straight into one string (every trigger writes two of these).
  private static func searchURL(_ prefix: StaticString, _ query: SearchQuery, _ last: (StaticString, Int)?)
    -> String
  {
    let sort = query.sort?.rawValue ?? ""
    let order = query.order.rawValue
    let lastCount = last.map { $0.0.utf8CodeUnitCount + 20 } ?? 0
    // Every byte of the text, sort and order may become three; a 64-bit number has at most 20 characters.
    let capacity =
      prefix.utf8CodeUnitCount + 2 + 3 * query.text.utf8.count + 14 + 3 * (sort.utf8.count + order.utf8.count)
      + lastCount
    return TextBuilder.make(capacity: capacity) { out in
      out.ascii(prefix)
      out.ascii("q=")
      URLEncoding.percentEncode(query.text) { out.byte($0) }
      if query.sort != nil {
        out.ascii("&sort=")
        URLEncoding.percentEncode(sort) { out.byte($0) }
        out.ascii("&order=")
        URLEncoding.percentEncode(order) { out.byte($0) }
      }
      if let (name, value) = last {
        out.ascii(name)
        out.decimal(value)
      }
    }
  }
}
