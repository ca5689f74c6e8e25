import Mustache
import TestSupport
import Testing

/// Rows of one list field (`items`), one flag (`on`) and one text (`label`).
private final class Boxes: MustacheRows {
  static let schema = MustacheSchema("box", names: ["items", "on", "label"])
  let rows: [(items: [String], on: Bool, label: String)]

  init(_ rows: [(items: [String], on: Bool, label: String)]) { self.rows = rows }

  var schema: MustacheSchema { Self.schema }
  var count: Int { rows.count }

  func count(of field: Int, row: Int) -> Int {
    switch field {
    case 0: return rows[row].items.count
    case 1: return rows[row].on ? 1 : 0
    default: return rows[row].label.isEmpty ? 0 : 1
    }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    switch field {
    case 0: output.append(rows[row].items[element])
    case 1: output.append(literal: rows[row].on ? "true" : "false")
    default: output.append(rows[row].label)
    }
  }
}

/// How a bound template is walked: as steps (a text run and the tag after it), single-pass sections
/// in line, partial calls resolved when the library loads; indented calls, parents and blocks through
/// the general walk.
@Suite(.timeLimit(.minutes(2))) struct BoundWalkTests {
  fileprivate static let rows = Boxes([(["a", "b"], true, "L<1>"), ([], false, ""), (["c"], true, "x")])

  fileprivate static func render(_ card: String, _ rows: Boxes = rows) throws -> String {
    let library = try TemplateLibrary(
      templates: ["card": card, "list": "{{#boxes}}{{> card}};{{/boxes}}"], bindings: ["card": Boxes.schema])
    return try library.render("list", ["boxes": .rows(rows)])
  }

  @Test func aSectionInsideAListSectionLeavesTheElementForWhatFollows() throws {
    // `{{#on}}` renders in line inside `{{#items}}`: the `.` after it is still the item.
    try expectEqual(Self.render("{{#items}}({{#on}}+{{/on}}{{.}}){{/items}}"), "(+a)(+b);;(+c);")
    try expectEqual(
      Self.render("{{#items}}{{#label}}{{.}}{{/label}}/{{.}} {{/items}}"), "L&lt;1&gt;/a L&lt;1&gt;/b ;;x/c ;"
    )
  }

  @Test func textEndingASectionStaysInsideIt() throws {
    let rendered = try Self.render("{{#on}}on:{{/on}}{{label}}|{{^on}}off:{{/on}}{{{label}}}")
    expectEqual(rendered, "on:L&lt;1&gt;|L<1>;|off:;on:x|x;")
  }

  @Test func stepsAreNotUsedForOtherValues() throws {
    let library = try TemplateLibrary(
      templates: ["card": "<b>{{label}}</b><i>{{{label}}}</i>{{#on}}!{{/on}}"],
      bindings: ["card": Boxes.schema])
    try expectEqual(library.render("card", ["label": "a&b", "on": true]), "<b>a&amp;b</b><i>a&b</i>!")
  }

  @Test func boundPartialsCallBoundPartialsWithIndentation() throws {
    let library = try TemplateLibrary(
      templates: [
        "card": "<{{label}}>\n  {{> line}}\n", "line": "{{#items}}[{{.}}]{{/items}}\nend\n",
        "list": "{{#boxes}}\n  {{> card}}\n{{/boxes}}",
      ], bindings: ["card": Boxes.schema, "line": Boxes.schema])
    try expectEqual(
      library.render("list", ["boxes": .rows(Self.rows)]),
      "  <L&lt;1&gt;>\n    [a][b]\n    end\n  <>\n    \n    end\n  <x>\n    [c]\n    end\n")
  }

  @Test func boundParentsAndBlocksReadFieldsThroughTheGeneralWalk() throws {
    let library = try TemplateLibrary(
      templates: [
        "card": "{{<frame}}{{$body}}<{{label}}>{{#items}}[{{.}}]{{/items}}{{/body}}{{/frame}}",
        "frame": "{{#on}}on {{/on}}{{$body}}default{{/body}}|", "list": "{{#boxes}}{{> card}};{{/boxes}}",
      ], bindings: ["card": Boxes.schema, "frame": Boxes.schema])
    try expectEqual(
      library.render("list", ["boxes": .rows(Self.rows)]), "on <L&lt;1&gt;>[a][b]|;<>|;on <x>[c]|;")
  }

  /// A template of one library rendered with another's partials calls that one's by name.
  @Test func templatesUseThePartialsOfTheLibraryTheyAreRenderedWith() throws {
    let first = try TemplateLibrary(templates: ["page": "({{> part}})", "part": "first"])
    let second = try TemplateLibrary(templates: ["part": "second"])
    let page = try #require(first.template(named: "page"))
    expectEqual(page.render([:], partials: first), "(first)")
    expectEqual(page.render([:], partials: second), "(second)")
    expectEqual(page.render([:]), "()")
  }

  /// A template kept after its library is gone still renders, with another library's partials.
  @Test func templatesOutliveTheirLibrary() throws {
    var page: Template?
    do {
      let first = try TemplateLibrary(templates: [
        "page": "({{> part}}{{<frame}}{{/frame}})", "part": "1", "frame": "f",
      ])
      page = first.template(named: "page")
    }
    let second = try TemplateLibrary(templates: ["part": "2", "frame": "g"])
    try expectEqual(#require(page).render([:], partials: second), "(2g)")
  }
}

/// Rows over dictionaries: `a` a list of strings, `b` a string or nothing, `c` a number or a flag,
/// `d` a list of strings or a flag. A field reads as the dictionary's value would.
private final class Columns: MustacheRows {
  static let schema = MustacheSchema("columns", names: ["a", "b", "c", "d"])
  let rows: [[MustacheValue]]

  init(_ rows: [[MustacheValue]]) { self.rows = rows }

  var schema: MustacheSchema { Self.schema }
  var count: Int { rows.count }

  func count(of field: Int, row: Int) -> Int {
    switch rows[row][field] {
    case .list(let items): return items.count
    case let value: return value.isTruthy ? 1 : 0
    }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    var value = rows[row][field]
    if case .list(let items) = value { value = items[element] }
    switch value {
    case .string(let text): output.append(text)
    case .int(let number): output.append(number)
    case .bool(let flag): output.append(literal: flag ? "true" : "false")
    default: break
    }
  }
}

/// Random bound templates render rows exactly as the same template renders the rows as dictionaries.
@Suite(.timeLimit(.minutes(2))) struct BoundWalkPropertyTests {
  static let names = ["a", "b", "c", "d"]

  /// Variables name the scalar fields (`b`, `c`); `.` appears only inside a section.
  static func pieces(_ rng: inout SeededGenerator, depth: Int, inSection: Bool) -> [Piece] {
    var pieces: [Piece] = []
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
      let name = names.randomElement(using: &rng) ?? "a"
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<2:
        pieces.append(
          .text("<" + PropertyTests.randomText(&rng, maxLength: 12).filter { !"{}\n\r".contains($0) }))
      case 2..<4:
        pieces.append(.variable(name == "a" || name == "d" ? "b" : name, raw: Bool.random(using: &rng)))
      case 4 where inSection: pieces.append(.variable(".", raw: Bool.random(using: &rng)))
      case 5..<7 where depth < 4:
        pieces.append(.section(name, Self.pieces(&rng, depth: depth + 1, inSection: true)))
      case 7 where depth < 4:
        pieces.append(.inverted(name, Self.pieces(&rng, depth: depth + 1, inSection: inSection)))
      default: pieces.append(.text("|"))
      }
    }
    return pieces
  }

  static func row(_ rng: inout SeededGenerator) -> [MustacheValue] {
    let items = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
      MustacheValue.string(PropertyTests.randomText(&rng, maxLength: 6))
    }
    let text: MustacheValue =
      Bool.random(using: &rng) ? .string(PropertyTests.randomText(&rng, maxLength: 8)) : .null
    let number: MustacheValue =
      Bool.random(using: &rng) ? .int(Int.random(in: -50...50, using: &rng)) : .bool(Bool.random(using: &rng))
    let more: MustacheValue =
      Bool.random(using: &rng)
      ? .list((0..<Int.random(in: 0...2, using: &rng)).map { .string("d\($0)") })
      : .bool(Bool.random(using: &rng))
    return [.list(items), text, number, more]
  }

  @Test func boundRowsRenderAsDictionariesDo() throws {
    var rng = SeededGenerator(state: 11)
    for _ in 0..<1500 {
      let source = Self.pieces(&rng, depth: 0, inSection: false).map(\.source).joined()
      let rows = (0..<Int.random(in: 0...4, using: &rng)).map { _ in Self.row(&rng) }
      let list = "{{#rows}}{{> card}};{{/rows}}"
      let bound = try TemplateLibrary(
        templates: ["card": source, "list": list], bindings: ["card": Columns.schema])
      let unbound = try TemplateLibrary(templates: ["card": source, "list": list])
      let objects = rows.map { MustacheValue.object(Dictionary(uniqueKeysWithValues: zip(Self.names, $0))) }
      let expected = try unbound.render("list", ["rows": .list(objects)])
      try expectEqual(bound.render("list", ["rows": .rows(Columns(rows))]), expected, "template: \(source)")
    }
  }
}
