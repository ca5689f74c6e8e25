/// A reader's query taken apart once for windows (`SearchWindow`): the words every window keeps,
/// and the reader's own qualifiers on the key and on the creation date, which each window intersects
/// with its own. Parsing the words costs more than the rest of a cached fragment's list work, so a
/// list parses once and combines each window it reads cheaply.
///
/// ```swift
/// let base = try WindowBase(SearchQuery(text: "language:rust stars:>10", sort: .stars), key: .stars)
/// try base.query(keys: QualifierBounds(upper: 3719), created: nil, order: .desc)?.text
/// // "language:rust stars:11..3719"
/// ```
public struct WindowBase: Hashable, Sendable {
  /// The key the windows go by.
  public let key: SearchSort
  /// The key's qualifier name.
  let keyName: String
  /// The other words, in order, the reader's `created:` ones included (a window without a slice
  /// leaves them as typed).
  let words: String
  /// The other words without the reader's `created:` ones (a slice replaces them).
  let wordsWithoutCreated: String
  /// The reader's bounds on the key; all when none.
  let keys: QualifierBounds
  /// The reader's bounds on the creation date; all when none.
  let created: QualifierBounds
  /// Why a slice cannot be combined with the reader's `created:` words (negated or not understood).
  let createdProblem: SearchWindow.Problem?

  /// Takes `query` apart for windows of `key`. Throws when a qualifier on the key is not a plain
  /// range (negated, or not understood), or the key has no range qualifier (`updated`).
  public init(_ query: SearchQuery, key: SearchSort) throws(SearchWindow.Problem) {
    guard let keyName = SearchWindow.qualifier(key) else { throw .unreadable("sort:updated") }
    self.key = key
    self.keyName = keyName
    var keys = QualifierBounds.all
    var created = QualifierBounds.all
    var createdProblem: SearchWindow.Problem?
    var all: [Substring] = []
    var withoutCreated: [Substring] = []
    var previous: Substring = ""
    for token in SearchWindow.tokens(query.text) {
      defer { previous = token }
      let negated = token.hasPrefix("-")
      let body = negated ? token.dropFirst() : token
      guard let colon = body.firstIndex(of: ":"), !body.hasPrefix("\"") else {
        all.append(token)
        withoutCreated.append(token)
        continue
      }
      let name = body[..<colon].lowercased()
      let value = body[body.index(after: colon)...]
      let plain = !negated && previous != "NOT"
      if name == keyName {
        guard plain, let bounds = SearchWindow.numbers(value) else { throw .unreadable(String(token)) }
        keys = keys.intersection(bounds)
      } else if name == "created" {
        all.append(token)
        if plain, let bounds = SearchWindow.dates(value) {
          created = created.intersection(bounds)
        } else if createdProblem == nil {
          createdProblem = .unreadable(String(token))
        }
      } else {
        all.append(token)
        withoutCreated.append(token)
      }
    }
    self.keys = keys
    self.created = created
    self.createdProblem = createdProblem
    words = all.joined(separator: " ")
    wordsWithoutCreated = withoutCreated.joined(separator: " ")
  }

  /// The query of the window of `keys` (and, in a tie bucket, the creation slice `created`): the
  /// reader's words with the intersections of their bounds and the window's, sorted by the key in
  /// `order`. Nil
  /// when nothing can match (an empty intersection). Throws when a slice meets a `created:` word it
  /// cannot combine with, or the query passes GitHub's 256 characters.
  public func query(keys window: QualifierBounds, created slice: QualifierBounds?, order: SortOrder)
    throws(SearchWindow.Problem) -> SearchQuery?
  {
    let keys = keys.intersection(window)
    var created: QualifierBounds?
    if let slice {
      if let createdProblem { throw createdProblem }
      created = self.created.intersection(slice)
    }
    if keys.isEmpty || created?.isEmpty == true { return nil }
    var text = slice == nil ? words : wordsWithoutCreated
    for qualifier in [
      SearchWindow.written(keyName, keys, SearchWindow.number),
      created.flatMap { SearchWindow.written("created", $0, SearchWindow.date) },
    ] {
      guard let qualifier else { continue }
      text += text.isEmpty ? qualifier : " " + qualifier
    }
    guard text.utf8.count <= SearchWindow.maxLength || text.count <= SearchWindow.maxLength else {
      throw .tooLong
    }
    return SearchQuery(text: text, sort: key, order: order)
  }
}
