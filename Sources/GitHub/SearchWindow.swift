import HTTP

/// Inclusive bounds on a qualifier's values (a count, or Unix seconds for dates); nil ends are open.
public struct QualifierBounds: Hashable, Sendable {
  /// The smallest value; nil: no lower end.
  public var lower: Int?
  /// The largest value; nil: no upper end.
  public var upper: Int?

  /// Bounds from their ends.
  public init(lower: Int? = nil, upper: Int? = nil) {
    self.lower = lower
    self.upper = upper
  }

  /// No bound at all.
  public static let all = QualifierBounds()

  /// Both bounds at once: the values within each.
  public func intersection(_ other: QualifierBounds) -> QualifierBounds {
    // No arrays: every window read intersects its bounds with the reader's.
    func larger(_ a: Int?, _ b: Int?) -> Int? { a.map { a in b.map { max(a, $0) } ?? a } ?? b }
    func smaller(_ a: Int?, _ b: Int?) -> Int? { a.map { a in b.map { min(a, $0) } ?? a } ?? b }
    return QualifierBounds(lower: larger(lower, other.lower), upper: smaller(upper, other.upper))
  }

  /// Whether no value lies within.
  public var isEmpty: Bool {
    guard let lower, let upper else { return false }
    return lower > upper
  }
}

/// The part of a reader's query that a window past GitHub's 1,000-result cap reads: the rows whose sort
/// key lies within `keys` and, inside one key's tie bucket, whose creation time lies within `created`.
///
/// ```swift
/// let query = SearchQuery(text: "language:rust stars:>10", sort: .stars)
/// let window = SearchWindow(key: .stars, keys: QualifierBounds(upper: 3719))
/// try window.applied(to: query)?.text  // "language:rust stars:11..3719"
/// ```
public struct SearchWindow: Hashable, Sendable {
  /// Why a query cannot be read by windows.
  public enum Problem: Error, Hashable, Sendable {
    /// The reader's query holds a qualifier on the key or creation date that is not a plain range
    /// (negated, or not understood), so a window could not be combined with it; the payload names it.
    case unreadable(String)
    /// With the window's qualifiers the query passes GitHub's 256-character limit.
    case tooLong
  }

  /// GitHub's longest `q`.
  public static let maxLength = 256

  /// The key: `stars`, `forks` or `help-wanted-issues` (`updated` has no qualifier).
  public var key: SearchSort
  /// The key's range.
  public var keys: QualifierBounds
  /// The creation-time range, for a tie-bucket slice; nil: any.
  public var created: QualifierBounds?

  /// A window from its parts.
  public init(key: SearchSort, keys: QualifierBounds, created: QualifierBounds? = nil) {
    self.key = key
    self.keys = keys
    self.created = created
  }

  /// The qualifier name of a sort key that has a range qualifier; nil for `updated`.
  public static func qualifier(_ sort: SearchSort) -> String? {
    switch sort {
    case .stars: return "stars"
    case .forks: return "forks"
    case .helpWantedIssues: return "help-wanted-issues"
    case .updated: return nil
    }
  }

  /// `query` read within this window, sorted by the key in `query`'s order (or descending for a query
  /// without a sort): the reader's own qualifiers on the key and on the creation date are replaced by
  /// their intersection with the window's. Nil when nothing can match (an empty intersection).
  public func applied(to query: SearchQuery) throws(Problem) -> SearchQuery? {
    try WindowBase(query, key: key).query(
      keys: keys, created: created, order: query.sort == nil ? .desc : query.order)
  }

  /// `name:a..b` (or `>=a`, `<=b`, `a`) for bounds; nil when both ends are open.
  static func written(_ name: String, _ bounds: QualifierBounds, _ format: (Int) -> String) -> String? {
    switch (bounds.lower, bounds.upper) {
    case (nil, nil): return nil
    case (let lower?, nil): return name + ":>=" + format(lower)
    case (nil, let upper?): return name + ":<=" + format(upper)
    case (let lower?, let upper?):
      return name + ":" + (lower == upper ? format(lower) : format(lower) + ".." + format(upper))
    }
  }

  static func number(_ value: Int) -> String { String(value) }
  static func date(_ value: Int) -> String { CivilDate.isoTimestamp(unixSeconds: value) }

  /// The query's words: split at whitespace outside double quotes, quotes kept.
  static func tokens(_ text: String) -> [Substring] {
    var tokens: [Substring] = []
    var start: String.Index? = nil
    var quoted = false
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "\"" { quoted.toggle() }
      if character.isWhitespace && !quoted {
        if let begun = start { tokens.append(text[begun..<index]) }
        start = nil
      } else if start == nil {
        start = index
      }
      index = text.index(after: index)
    }
    if let begun = start { tokens.append(text[begun...]) }
    return tokens
  }

  /// GitHub's range syntax over whole numbers: `>n`, `>=n`, `<n`, `<=n`, `a..b`, `*..b`, `a..*`, `n`.
  static func numbers(_ text: Substring) -> QualifierBounds? {
    range(text) { operand in
      guard operand.utf8.count <= 18, let value = Int(operand), value >= 0 else { return nil }
      return (value, value)
    }
  }

  /// The same syntax over dates (`YYYY-MM-DD`, a whole UTC day) and times (`YYYY-MM-DDTHH:MM`, with
  /// optional seconds and a `Z` or `±HH:MM` offset), as Unix seconds.
  static func dates(_ text: Substring) -> QualifierBounds? { range(text, instant) }

  /// Parses the range operators around `operand`, which maps one operand to the first and last value
  /// it covers.
  static func range(_ text: Substring, _ operand: (Substring) -> (Int, Int)?) -> QualifierBounds? {
    if text.hasPrefix(">=") { return operand(text.dropFirst(2)).map { QualifierBounds(lower: $0.0) } }
    if text.hasPrefix("<=") { return operand(text.dropFirst(2)).map { QualifierBounds(upper: $0.1) } }
    if text.hasPrefix(">") {
      return operand(text.dropFirst()).map { QualifierBounds(lower: $0.1 < Int.max ? $0.1 + 1 : Int.max) }
    }
    if text.hasPrefix("<") {
      return operand(text.dropFirst()).map { QualifierBounds(upper: $0.0 > Int.min ? $0.0 - 1 : Int.min) }
    }
    if let dots = text.firstRange(of: "..") {
      let (first, last) = (text[..<dots.lowerBound], text[dots.upperBound...])
      var bounds = QualifierBounds()
      if first != "*" {
        guard let value = operand(first) else { return nil }
        bounds.lower = value.0
      }
      if last != "*" {
        guard let value = operand(last) else { return nil }
        bounds.upper = value.1
      }
      return bounds
    }
    return operand(text).map { QualifierBounds(lower: $0.0, upper: $0.1) }
  }

  /// The first and last second a date or time covers (a day, a minute, or a second).
  static func instant(_ text: Substring) -> (Int, Int)? {
    let b = Array(text.utf8)
    func digits(_ at: Int, _ count: Int) -> Int? {
      guard at + count <= b.count else { return nil }
      var value = 0
      for i in at..<(at + count) {
        guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
        value = value * 10 + Int(b[i] - 0x30)
      }
      return value
    }
    guard b.count >= 10, b[4] == 0x2D, b[7] == 0x2D, let y = digits(0, 4), let m = digits(5, 2),
      let d = digits(8, 2), (1...12).contains(m), d >= 1
    else { return nil }
    let day = CivilDate.days(fromCivil: y, m, d)
    guard CivilDate.civil(fromDays: day) == (y, m, d) else { return nil }
    let start = day * 86400
    if b.count == 10 { return (start, start + 86399) }
    guard b[10] == 0x54 || b[10] == 0x20, b.count >= 16, b[13] == 0x3A, let hh = digits(11, 2),
      let mm = digits(14, 2), hh < 24, mm < 60
    else { return nil }
    var at = 16
    var seconds: Int? = nil
    if at < b.count, b[at] == 0x3A {
      guard let s = digits(at + 1, 2), s < 60 else { return nil }
      seconds = s
      at += 3
    }
    var offset = 0
    if at < b.count {
      if b[at] == 0x5A && at + 1 == b.count {
        offset = 0
      } else if b[at] == 0x2B || b[at] == 0x2D, b.count == at + 6, b[at + 3] == 0x3A,
        let oh = digits(at + 1, 2), let om = digits(at + 4, 2), oh < 24, om < 60
      {
        offset = (oh * 3600 + om * 60) * (b[at] == 0x2B ? 1 : -1)
      } else {
        return nil
      }
    }
    let instant = start + hh * 3600 + mm * 60 + (seconds ?? 0) - offset
    return (instant, seconds == nil ? instant + 59 : instant)
  }
}
