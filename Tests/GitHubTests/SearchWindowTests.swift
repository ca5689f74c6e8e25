import GitHub
import TestSupport
import Testing

/// A window past GitHub's cap is the reader's query with the key's range and a creation slice
/// combined into it: one qualifier each, intersected with the reader's own.
@Suite("Search windows", .timeLimit(.minutes(1)))
struct SearchWindowTests {
  func text(_ query: String, sort: SearchSort? = .stars, _ window: SearchWindow) throws -> String? {
    try window.applied(to: SearchQuery(text: query, sort: sort))?.text
  }

  @Test(
    "the key's range is written once, intersected with the reader's own",
    arguments: [
      ("language:rust", QualifierBounds(upper: 3719), "language:rust stars:<=3719"),
      ("language:rust stars:>10", QualifierBounds(upper: 3719), "language:rust stars:11..3719"),
      ("stars:>=0", QualifierBounds(upper: 0), "stars:0"),
      ("stars:10..20 topic:cli", QualifierBounds(lower: 15), "topic:cli stars:15..20"),
      ("Stars:<5 swift", QualifierBounds(lower: 2), "swift stars:2..4"),
      ("stars:*..9", QualifierBounds(), "stars:<=9"),
      ("\"stars:>5\" swift", QualifierBounds(upper: 7), "\"stars:>5\" swift stars:<=7"),
      ("forks:>3", QualifierBounds(upper: 7), "forks:>3 stars:<=7"),
    ])
  func keys(query: String, keys: QualifierBounds, expected: String) throws {
    try expectEqual(text(query, SearchWindow(key: .stars, keys: keys)), expected)
  }

  @Test("every range operator of the reader's is understood, on forks and help-wanted issues too")
  func operators() throws {
    for (qualifier, bounds) in [
      (">7", QualifierBounds(lower: 8)), (">=7", QualifierBounds(lower: 7)),
      ("<7", QualifierBounds(upper: 6)),
      ("<=7", QualifierBounds(upper: 7)), ("3..9", QualifierBounds(lower: 3, upper: 9)),
      ("*..9", QualifierBounds(upper: 9)), ("3..*", QualifierBounds(lower: 3)),
      ("7", QualifierBounds(lower: 7, upper: 7)),
    ] {
      for key in [SearchSort.forks, .helpWantedIssues] {
        let name = SearchWindow.qualifier(key) ?? ""
        let window = SearchWindow(key: key, keys: .all)
        let expected = SearchWindow(key: key, keys: bounds)
        try expectEqual(
          window.applied(to: SearchQuery(text: "go \(name):\(qualifier)", sort: key)),
          expected.applied(to: SearchQuery(text: "go", sort: key)), "\(name):\(qualifier)")
      }
    }
  }

  @Test("a tie bucket's slice is a created: range of UTC seconds, intersected with the reader's dates")
  func slices() throws {
    let slice = SearchWindow(
      key: .stars, keys: QualifierBounds(lower: 0, upper: 0),
      created: QualifierBounds(lower: 1_714_557_600, upper: 1_714_694_399))
    try expectEqual(
      text("stars:>=0", slice), "stars:0 created:2024-05-01T10:00:00Z..2024-05-02T23:59:59Z")
    // The reader's own dates: a whole day, a minute, an offset.
    try expectEqual(
      text("created:>=2024-05-02 stars:>=0", slice),
      "stars:0 created:2024-05-02T00:00:00Z..2024-05-02T23:59:59Z")
    try expectEqual(
      text("created:<2024-05-01T12:30+02:00", slice),
      "stars:0 created:2024-05-01T10:00:00Z..2024-05-01T10:29:59Z")
    let open = SearchWindow(
      key: .stars, keys: QualifierBounds(lower: 3, upper: 3), created: QualifierBounds(upper: 1_300_000_000))
    try expectEqual(text("", open), "stars:3 created:<=2011-03-13T07:06:40Z")
  }

  @Test("an empty intersection is no query at all; the order is the reader's, or descending for best match")
  func emptyAndOrder() throws {
    try expectEqual(text("stars:<5", SearchWindow(key: .stars, keys: QualifierBounds(lower: 9))), nil)
    let slice = SearchWindow(
      key: .stars, keys: QualifierBounds(lower: 1, upper: 1), created: QualifierBounds(lower: 1_800_000_000))
    try expectEqual(text("created:<2020-01-01", slice), nil)
    let ascending = try SearchWindow(key: .forks, keys: QualifierBounds(lower: 4))
      .applied(to: SearchQuery(text: "go", sort: .forks, order: .asc))
    expectTrue(ascending?.sort == .forks && ascending?.order == .asc)
    let continuation = try SearchWindow(key: .stars, keys: .all).applied(
      to: SearchQuery(text: "go", sort: nil, order: .asc))
    expectTrue(continuation?.sort == .stars && continuation?.order == .desc)
  }

  @Test(
    "a qualifier on the key that is not a plain range, or a query too long for one more, cannot take a window",
    arguments: [
      "stars:abc", "-stars:>5", "NOT stars:>5", "stars:>-3", "stars:10..", "stars:99999999999999999999",
    ])
  func unreadable(query: String) {
    #expect(throws: SearchWindow.Problem.self) {
      try SearchWindow(key: .stars, keys: QualifierBounds(upper: 3)).applied(
        to: SearchQuery(text: query, sort: .stars))
    }
  }

  @Test("GitHub's 256-character limit holds with the window's qualifiers")
  func length() throws {
    let long = String(repeating: "a", count: 245)
    #expect(throws: SearchWindow.Problem.tooLong) {
      try SearchWindow(key: .stars, keys: QualifierBounds(lower: 1, upper: 123_456)).applied(
        to: SearchQuery(text: long, sort: .stars))
    }
    expectTrue(
      try text(String(repeating: "a", count: 200), SearchWindow(key: .stars, keys: QualifierBounds(upper: 9)))
        != nil)
  }

  @Test("a created: qualifier is left alone when the window has no slice, and updated has no window")
  func untouched() throws {
    try expectEqual(
      text("created:>2020-01-01 go", SearchWindow(key: .stars, keys: QualifierBounds(upper: 5))),
      "created:>2020-01-01 go stars:<=5")
    #expect(throws: SearchWindow.Problem.self) {
      try SearchWindow(key: .updated, keys: .all).applied(to: SearchQuery(text: "go", sort: .updated))
    }
  }
}
