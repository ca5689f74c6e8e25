import HTTP
import Mustache
import Paging

/// Where a batch of a list starts, as its links carry it: `after=N` alone (the first rows, as every
/// link before windows had them), or a window past GitHub's 1,000-result cap:
/// `after=1537&stars=*..3719&skip=37&of=18385`.
///
/// - `after` (or a full page's `page`): rows of the list before the batch;
/// - the key parameter (`stars`, `forks` or `help-wanted-issues`, as the list's windows go): the
///   window's keys in GitHub's range syntax (`*..3719`, `12..*`, `3..5`, `0`; `*..*` is the first);
/// - `created=A..B`: inside one key's tie bucket, the slice of creation times (ISO 8601, `*` open);
/// - `skip`: rows of the window already passed; `of`: the list's total as last counted.
enum ListCursor: Hashable, Sendable {
  /// `after=N` alone: N rows in (at most GitHub's cap).
  case offset(Int)
  /// A window.
  case window(WindowCursor)

  /// Most rows a cursor may be past.
  static let maxPosition = 1_000_000_000
  /// Largest key a window may name.
  static let maxKey = 1_000_000_000_000
  /// Most rows of one window a cursor may have passed (a window holds at most GitHub's cap).
  static let maxSkip = GitHubSearchSource.resultCap - 1

  /// Rows of the list before the batch.
  var position: Int {
    switch self {
    case .offset(let rows): return rows
    case .window(let cursor): return cursor.position
    }
  }

  /// The raw window parameters of a request, read with the search fields.
  struct Fields: Sendable, Equatable {
    /// Key parameters by name (`stars`, `forks`, `help-wanted-issues`).
    var keys: [String: String] = [:]
    var created: String?
    var skip: String?
    var of: String?

    /// Whether any window parameter was sent.
    var isEmpty: Bool { keys.isEmpty && created == nil && skip == nil && of == nil }
  }

  /// The key parameters' names.
  static let keyNames: Set<String> = ["stars", "forks", "help-wanted-issues"]

  /// The cursor a request names, for a list whose windows go by `key` (nil: a list without windows);
  /// `position` is the `after` value or the full page's start. Anything malformed is a 400 whose
  /// message says what was expected.
  static func parse(position text: String?, fields: Fields, key: String?) throws(HTTPError) -> ListCursor {
    let cap = GitHubSearchSource.resultCap
    guard !fields.isEmpty else {
      guard let text else { return .offset(0) }
      guard let rows = number(text, upTo: cap) else {
        throw HTTPError(
          .badRequest, "after must be a whole number from 0 to \(cap) (further on, next links name a window)")
      }
      return .offset(rows)
    }
    guard let key else { throw HTTPError(.badRequest, "this list has no windows past row \(cap)") }
    for name in fields.keys.keys where name != key {
      throw HTTPError(.badRequest, "this list's windows go by \(key), not \(name)")
    }
    guard let range = fields.keys[key] else {
      throw HTTPError(.badRequest, "skip, created and of need a \(key) window")
    }
    guard let keys = interval(range, parse: { number($0, upTo: maxKey) }) else {
      throw HTTPError(
        .badRequest, "\(key) must be a range of whole numbers such as *..3719, 12..*, 3..5 or 7")
    }
    var slice: Interval? = nil
    if let created = fields.created {
      guard keys.single != nil else { throw HTTPError(.badRequest, "created needs a single \(key) value") }
      guard let times = interval(created, parse: { CivilDate.unixSeconds(isoTimestamp: $0) }) else {
        throw HTTPError(
          .badRequest,
          "created must be a range of UTC times such as 2024-05-01T10:00:00Z..2024-05-03T00:00:00Z")
      }
      slice = times
    }
    let position =
      try text.map { text throws(HTTPError) in
        guard let rows = number(text, upTo: maxPosition) else {
          throw HTTPError(.badRequest, "after must be a whole number from 0 to \(maxPosition)")
        }
        return rows
      } ?? 0
    let skip =
      try fields.skip.map { text throws(HTTPError) in
        guard let rows = number(text, upTo: maxSkip) else {
          throw HTTPError(.badRequest, "skip must be a whole number from 0 to \(maxSkip)")
        }
        return rows
      } ?? 0
    let total = try fields.of.map { text throws(HTTPError) in
      guard let rows = number(text, upTo: maxPosition) else {
        throw HTTPError(.badRequest, "of must be a whole number from 0 to \(maxPosition)")
      }
      return rows
    }
    let window = KeyWindow(keys: keys, slice: slice)
    return .window(WindowCursor(window: window, skip: skip, position: position, total: total))
  }

  /// A whole number of at most `limit` written in plain digits; nil for anything else.
  static func number(_ text: Substring, upTo limit: Int) -> Int? {
    guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
      let value = Int(text), value <= limit
    else { return nil }
    return value
  }

  static func number(_ text: String, upTo limit: Int) -> Int? { number(text[...], upTo: limit) }

  /// `a..b` (`*` for an open end, low to high) or a single value, as `parse` reads one operand.
  static func interval(_ text: String, parse: (Substring) -> Int?) -> Interval? {
    guard let dots = firstDots(in: text) else {
      return parse(text[...]).map { Interval.just($0) }
    }
    let (first, last) = (text[..<dots.lowerBound], text[dots.upperBound...])
    var interval = Interval.all
    if first != "*" {
      guard let value = parse(first) else { return nil }
      interval.lower = value
    }
    if last != "*" {
      guard let value = parse(last) else { return nil }
      interval.upper = value
    }
    if let lower = interval.lower, let upper = interval.upper, lower > upper { return nil }
    return interval
  }

  /// Where `..` first occurs in `text`, found in its UTF-8: `firstRange(of:)` compares Characters, and
  /// on a window's link that cost more than the rest of reading its cursor.
  static func firstDots(in text: String) -> Range<String.Index>? {
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index < utf8.endIndex {
      let next = utf8.index(after: index)
      guard next < utf8.endIndex else { return nil }
      if utf8[index] == 0x2E && utf8[next] == 0x2E { return index..<utf8.index(after: next) }
      index = next
    }
    return nil
  }
}

extension WindowCursor {
  /// The most bytes `write(key:into:)` writes.
  static let maxQueryBytes = 200

  /// The window's parameters after `after=`/`page=`: `&stars=*..3719&created=…&skip=37&of=18385`.
  func write(key: StaticString, into out: inout TextBuilder) {
    out.byte(UInt8(ascii: "&"))
    out.ascii(key)
    out.byte(UInt8(ascii: "="))
    Self.write(window.keys, into: &out) { out, value in out.decimal(value) }
    if let slice = window.slice {
      out.ascii("&created=")
      Self.write(slice, into: &out) { out, value in
        for byte in CivilDate.isoTimestamp(unixSeconds: value).utf8 { out.byte(byte) }
      }
    }
    if skip > 0 {
      out.ascii("&skip=")
      out.decimal(skip)
    }
    if let total {
      out.ascii("&of=")
      out.decimal(total)
    }
  }

  /// An interval in GitHub's range syntax: `7`, `3..9`, `*..9`, `3..*`, `*..*`.
  static func write(
    _ interval: Interval, into out: inout TextBuilder, _ value: (inout TextBuilder, Int) -> Void
  ) {
    if let single = interval.single {
      value(&out, single)
      return
    }
    if let lower = interval.lower { value(&out, lower) } else { out.byte(UInt8(ascii: "*")) }
    out.ascii("..")
    if let upper = interval.upper { value(&out, upper) } else { out.byte(UInt8(ascii: "*")) }
  }
}
