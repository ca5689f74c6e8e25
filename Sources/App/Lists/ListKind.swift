import Encodings
import GitHub
import HTTP
import Mustache
import Paging
import Synchronization

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

  /// How the list goes on past GitHub's 1,000-result cap: by windows of a sort key, either in the
  /// reader's own order or, for best match and `updated` (no range qualifier), as a continuation by
  /// stars after GitHub's first 1,000. Nil when the query cannot be combined with a window (it holds
  /// a key or `created:` qualifier that is not a plain range, or would pass GitHub's length limit):
  /// such a list ends at the cap and says why.
  struct Windows: Sendable, Equatable {
    /// The key the windows go by.
    var key: SearchSort
    /// True when the windows continue after GitHub's own first 1,000 (best match, `updated`).
    var continuation: Bool
    /// Largest first.
    var descending: Bool
    /// The query taken apart for windows, once.
    var base: WindowBase
  }

  /// The list's windows (see `Windows`).
  var windows: Windows? {
    let query = self.query
    let key: SearchSort
    let continuation: Bool
    switch query.sort {
    case .stars?, .forks?, .helpWantedIssues?:
      key = query.sort ?? .stars
      continuation = false
    case .updated?, nil:
      key = .stars
      continuation = true
    }
    guard let base = Self.windowBase(query.text, key: key) else { return nil }
    return Windows(
      key: key, continuation: continuation, descending: continuation || query.order == .desc, base: base)
  }

  /// The query taken apart for windows of `key`, sorted by the key in descending order, when it
  /// combines with the longest window any walk writes (a key range and a creation slice of full
  /// timestamps); else nil. Parsing the qualifiers costs more than the rest of a cached fragment's
  /// list work, and every batch asks, so answers are kept (a bounded memo: cleared when full).
  private static func windowBase(_ text: String, key: SearchSort) -> WindowBase? {
    let memoKey = Windowable(text: text, key: key)
    if let known = windowable.withLock({ $0[memoKey] }) { return known }
    let base = try? WindowBase(SearchQuery(text: text, sort: key, order: .desc), key: key)
    let takes =
      (try? base?.query(
        keys: QualifierBounds(lower: 999_999_999, upper: 1_000_000_000),
        created: QualifierBounds(lower: 1_191_196_800, upper: 4_102_444_799), order: .desc)) != nil
    let answer = takes ? base : nil
    windowable.withLock { memo in
      if memo.count >= 4096 { memo.removeAll(keepingCapacity: true) }
      memo[memoKey] = answer
    }
    return answer
  }

  private struct Windowable: Hashable {
    let text: String
    let key: SearchSort
  }

  private static let windowable = Mutex<[Windowable: WindowBase?]>([:])

  /// The name of the key parameter of the list's windows (whether or not its query takes them).
  var windowKey: String { "\(key)" }

  /// The name of the key parameter in the list's window links.
  static func keyParameter(_ key: SearchSort) -> StaticString {
    switch key {
    case .forks: return "forks"
    case .helpWantedIssues: return "help-wanted-issues"
    case .stars, .updated: return "stars"
    }
  }

  /// The no-JS full page of batch `page` (1-based); page 1 has no `page` parameter.
  func pageURL(page: Int) -> String { pageURL(page: page, cursor: nil) }

  /// The no-JS full page of batch `page` (1-based) starting at `cursor` (a window past the first rows).
  func pageURL(page: Int, cursor: ListCursor?) -> String {
    let window = Self.window(cursor)
    let last: (StaticString, Int)?
    switch self {
    case .search: last = page > 1 || window != nil ? ("&page=", page) : nil
    case .owner: last = page > 1 || window != nil ? ("?page=", page) : nil
    }
    return link(page: true, last, window).text
  }

  /// The fragment with the batch that starts at `after`.
  func fragmentURL(after: Int) -> String { fragmentURL(.offset(after)) }

  /// The fragment with the batch that starts at `cursor`.
  func fragmentURL(_ cursor: ListCursor) -> String { fragmentLink(cursor).text }

  /// The fragment with the batch that starts at `cursor`, to be written out (`Link`).
  func fragmentLink(_ cursor: ListCursor) -> Link {
    switch self {
    case .search: return link(page: false, ("&after=", cursor.position), Self.window(cursor))
    case .owner: return link(page: false, ("?after=", cursor.position), Self.window(cursor))
    }
  }

  /// A page (`page`) or fragment URL of the list with the number parameter `last` and the window's
  /// parameters.
  private func link(page: Bool, _ last: (StaticString, Int)?, _ window: WindowCursor?) -> Link {
    switch self {
    case .search(let query):
      return Link(
        prefix: page ? "/?" : "/fragments/results?", list: .search(query, key: key), last: last,
        window: window)
    case .owner(let login):
      return Link(
        prefix: page ? "/owners/" : "/fragments/owners/", list: .owner(login), last: last, window: window)
    }
  }

  /// One of the list's URLs as its parts, written out when asked: into a `String`, or straight into
  /// a render (the `data-batch` of every fragment's first card), with no `String` made.
  struct Link: Sendable {
    fileprivate enum List: Sendable {
      /// `q`, `sort` and `order` (when sorted); window parameters named by `key`.
      case search(SearchQuery, key: StaticString)
      /// The login, percent-encoded in the path; window parameters named `stars`.
      case owner(String)
    }

    fileprivate let prefix: StaticString
    fileprivate let list: List
    /// The number parameter (`&after=`, `?page=`) and its value.
    fileprivate let last: (StaticString, Int)?
    fileprivate let window: WindowCursor?

    /// At most the bytes `write` writes: every byte of the text, sort and order, or of the login, may
    /// become three; a 64-bit number has at most 20 characters.
    var capacity: Int {
      let lastCount = last.map { $0.0.utf8CodeUnitCount + 20 } ?? 0
      let windowCount = window == nil ? 0 : WindowCursor.maxQueryBytes
      switch list {
      case .search(let query, _):
        let sort = query.sort?.rawValue ?? ""
        let order = query.order.rawValue
        return prefix.utf8CodeUnitCount + 2 + 3 * query.text.utf8.count + 14
          + 3 * (sort.utf8.count + order.utf8.count) + lastCount + windowCount
      case .owner(let login):
        return prefix.utf8CodeUnitCount + 3 * login.utf8.count + lastCount + windowCount
      }
    }

    /// The URL as a string.
    var text: String { TextBuilder.make(capacity: capacity) { write(into: &$0) } }

    /// The URL appended to a render's output (escaped when the tag escapes).
    func write(to output: inout MustacheOutput) {
      TextBuilder.write(capacity: capacity, to: &output) { write(into: &$0) }
    }

    /// The prefix, then `q`, `sort` and `order` (when sorted) or the login, the number parameter and
    /// the window's parameters.
    func write(into out: inout TextBuilder) {
      out.ascii(prefix)
      switch list {
      case .search(let query, let key):
        out.ascii("q=")
        URLEncoding.percentEncode(query.text) { out.byte($0) }
        if let sort = query.sort {
          out.ascii("&sort=")
          URLEncoding.percentEncode(sort.rawValue) { out.byte($0) }
          out.ascii("&order=")
          URLEncoding.percentEncode(query.order.rawValue) { out.byte($0) }
        }
        writeLast(into: &out)
        window?.write(key: key, into: &out)
      case .owner(let login):
        URLEncoding.percentEncode(login) { out.byte($0) }
        writeLast(into: &out)
        window?.write(key: "stars", into: &out)
      }
    }

    private func writeLast(into out: inout TextBuilder) {
      guard let (name, value) = last else { return }
      out.ascii(name)
      out.decimal(value)
    }
  }

  /// The key parameter's name (the sort's key; `stars` for the continuation of the others).
  private var key: StaticString { Self.keyParameter(query.sort ?? .stars) }

  private static func window(_ cursor: ListCursor?) -> WindowCursor? {
    if case .window(let window)? = cursor { return window }
    return nil
  }
}
