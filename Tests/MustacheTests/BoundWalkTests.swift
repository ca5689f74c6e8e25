import Mustache
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
@Suite struct BoundWalkTests {
  fileprivate static let rows = Boxes([(["a", "b"], true, "L<1>"), ([], false, ""), (["c"], true, "x")])

  fileprivate static func render(_ card: String, _ rows: Boxes = rows) throws -> String {
    let library = try TemplateLibrary(
      templates: ["card": card, "list": "{{#boxes}}{{> card}};{{/boxes}}"], bindings: ["card": Boxes.schema])
    return try library.render("list", ["boxes": .rows(rows)])
  }

  @Test func aSectionInsideAListSectionLeavesTheElementForWhatFollows() throws {
    // `{{#on}}` renders in line inside `{{#items}}`: the `.` after it is still the item.
    #expect(try Self.render("{{#items}}({{#on}}+{{/on}}{{.}}){{/items}}") == "(+a)(+b);;(+c);")
    #expect(
      try Self.render("{{#items}}{{#label}}{{.}}{{/label}}/{{.}} {{/items}}")
        == "L&lt;1&gt;/a L&lt;1&gt;/b ;;x/c ;")
  }

  @Test func textEndingASectionStaysInsideIt() throws {
    let rendered = try Self.render("{{#on}}on:{{/on}}{{label}}|{{^on}}off:{{/on}}{{{label}}}")
    #expect(rendered == "on:L&lt;1&gt;|L<1>;|off:;on:x|x;")
  }

  @Test func stepsAreNotUsedForOtherValues() throws {
    let library = try TemplateLibrary(
      templates: ["card": "<b>{{label}}</b><i>{{{label}}}</i>{{#on}}!{{/on}}"],
      bindings: ["card": Boxes.schema])
    #expect(try library.render("card", ["label": "a&b", "on": true]) == "<b>a&amp;b</b><i>a&b</i>!")
  }

  @Test func boundPartialsCallBoundPartialsWithIndentation() throws {
    let library = try TemplateLibrary(
      templates: [
        "card": "<{{label}}>\n  {{> line}}\n", "line": "{{#items}}[{{.}}]{{/items}}\nend\n",
        "list": "{{#boxes}}\n  {{> card}}\n{{/boxes}}",
      ], bindings: ["card": Boxes.schema, "line": Boxes.schema])
    #expect(
      try library.render("list", ["boxes": .rows(Self.rows)])
        == "  <L&lt;1&gt;>\n    [a][b]\n    end\n  <>\n    \n    end\n  <x>\n    [c]\n    end\n")
  }

  @Test func boundParentsAndBlocksReadFieldsThroughTheGeneralWalk() throws {
    let library = try TemplateLibrary(
      templates: [
        "card": "{{<frame}}{{$body}}<{{label}}>{{#items}}[{{.}}]{{/items}}{{/body}}{{/frame}}",
        "frame": "{{#on}}on {{/on}}{{$body}}default{{/body}}|", "list": "{{#boxes}}{{> card}};{{/boxes}}",
      ], bindings: ["card": Boxes.schema, "frame": Boxes.schema])
    #expect(
      try library.render("list", ["boxes": .rows(Self.rows)])
        == "on <L&lt;1&gt;>[a][b]|;<>|;on <x>[c]|;")
  }

  /// A template of one library rendered with another's partials calls that one's by name.
  @Test func templatesUseThePartialsOfTheLibraryTheyAreRenderedWith() throws {
    let first = try TemplateLibrary(templates: ["page": "({{> part}})", "part": "first"])
    let second = try TemplateLibrary(templates: ["part": "second"])
    let page = try #require(first.template(named: "page"))
    #expect(page.render([:], partials: first) == "(first)")
    #expect(page.render([:], partials: second) == "(second)")
    #expect(page.render([:]) == "()")
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
    #expect(try #require(page).render([:], partials: second) == "(2g)")
  }
}
