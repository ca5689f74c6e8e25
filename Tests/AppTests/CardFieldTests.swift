import Foundation
import GitHub
import Mustache
import Paging
import TestSupport
import Testing

@testable import App

/// `CardField` is the one declaration of what a card shows: `partials/card` reads every field (no
/// dead field), reads nothing else (startup also refuses that), and its header comment documents every
/// field and nothing else.
@Suite("Card fields: declared once, read and documented by partials/card", .timeLimit(.minutes(6)))
struct CardFieldTests {
  /// The card template's source: its header comment and its markup.
  static func card() throws -> (comment: String, markup: String) {
    let root = try ProcessRunner.packageRoot()
    let source = try String(contentsOfFile: root + "/Templates/partials/card.mustache", encoding: .utf8)
    let start = try #require(source.range(of: "{{!"))
    let end = try #require(source.range(of: "}}", range: start.upperBound..<source.endIndex))
    return (String(source[start.upperBound..<end.lowerBound]), String(source[end.upperBound...]))
  }

  /// The names the markup's tags read (`{{x}}`, `{{{x}}}`, `{{#x}}`, `{{^x}}`, `{{/x}}`, `{{&x}}`), `.` aside.
  static func namesRead(_ markup: String) -> Set<String> {
    var names: Set<String> = []
    var rest = markup[...]
    while let open = rest.range(of: "{{"),
      let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex)
    {
      var tag = rest[open.upperBound..<close.lowerBound]
      while let first = tag.first, "{#^/&".contains(first) { tag = tag.dropFirst() }
      let name = tag.trimmingCharacters(in: .whitespaces)
      if name != "." && !name.isEmpty { names.insert(name) }
      rest = rest[close.upperBound...]
    }
    return names
  }

  @Test func theTemplateReadsEveryFieldAndNothingElse() throws {
    let read = Self.namesRead(try Self.card().markup)
    let declared = Set(CardField.allCases.map(\.name))
    expectTrue(
      declared.subtracting(read).isEmpty, "declared but never read: \(declared.subtracting(read).sorted())")
    expectTrue(
      read.subtracting(declared).isEmpty, "read but not declared: \(read.subtracting(declared).sorted())")
  }

  @Test func theHeaderCommentDocumentsEveryField() throws {
    // Documented fields are lines `      name: Type   what it is` in the comment.
    let documented = Set(
      try Self.card().comment.split(separator: "\n").compactMap { line -> String? in
        let trimmed = line.drop { $0 == " " }
        guard line.count - trimmed.count == 6, let colon = trimmed.firstIndex(of: ":") else { return nil }
        let name = trimmed[..<colon]
        return name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) ? String(name) : nil
      })
    let declared = Set(CardField.allCases.map(\.name))
    expectEqual(
      documented, declared,
      "undocumented: \(declared.subtracting(documented).sorted()); stale: \(documented.subtracting(declared).sorted())"
    )
  }

  @Test func namesAreUniqueAndNumberedInOrder() {
    expectEqual(Set(CardField.allCases.map(\.name)).count, CardField.allCases.count)
    for field in CardField.allCases { expectEqual(CardField.schema.field(named: field.name), field.rawValue) }
  }

  @Test func aTemplateOrNonPublicRepositorySaysSoInItsFactsLine() throws {
    func card(template: Bool = false, public isPublic: Bool = false) throws -> String {
      let repository = Repository(
        id: 7, name: "starter", fullName: "octo/starter", owner: nil,
        htmlURL: "https://github.com/octo/starter",
        stargazersCount: 1, forksCount: 1, openIssuesCount: 1, createdAt: "",
        updatedAt: "2026-11-01T00:00:00Z", isTemplate: template, isPublic: isPublic)
      let batch = ListBatch(
        cursor: 0, items: [PositionedItem(position: 1, item: repository)], nextCursor: nil, total: 1,
        state: .end(.noMoreResults(1)))
      let view = BatchView(
        batch: batch, kind: .search(SearchQuery(text: "starter")), batchSize: 20, prefetchMargin: 5,
        largestStars: 1, now: 1_795_003_200)
      let templates = try Routes.loadTemplates(directory: try ProcessRunner.packageRoot() + "/Templates")
      var rendered: [UInt8] = []
      try templates.render("partials/cards", view.mustacheValue, into: &rendered)
      return String(decoding: rendered, as: UTF8.self)
    }
    expectTrue(try card(template: true, public: true).contains(" · Template · updated"))
    expectTrue(try !card(public: true).contains("Template"))
    // A repository GitHub did not call public says so first (only its reader's own answers hold one).
    expectTrue(try card(template: true).contains("\">Private · 1 fork"))
    expectTrue(try card(template: true).contains(" · Template · updated"))
    expectTrue(try !card(public: true).contains("Private"))
  }
}
