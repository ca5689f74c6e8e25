import Mustache
import TestSupport
import Testing

/// People as rows: `name` (text), `age` (number), `admin` (flag), `tags` (a list field).
// @unchecked Sendable: `written` is mutated, but each instance is used by one test on one task.
private final class People: MustacheRows, @unchecked Sendable {
  struct Person {
    var name: String
    var age: Int
    var admin: Bool
    var tags: [String]
  }

  static let schema = MustacheSchema("person", names: ["name", "age", "admin", "tags"])
  let people: [Person]
  /// Every field number the rows were asked to write, in order.
  var written: [Int] = []

  init(_ people: [Person]) { self.people = people }

  var schema: MustacheSchema { Self.schema }
  var count: Int { people.count }

  func count(of field: Int, row: Int) -> Int {
    let person = people[row]
    switch field {
    case 0: return person.name.isEmpty ? 0 : 1
    case 1: return 1
    case 2: return person.admin ? 1 : 0
    default: return person.tags.count
    }
  }

  func write(_ field: Int, row: Int, element: Int, to output: inout MustacheOutput) {
    written.append(field)
    let person = people[row]
    switch field {
    case 0: output.append(person.name)
    case 1: output.append(person.age)
    case 2: output.append(literal: person.admin ? "true" : "false")
    default: output.append(person.tags[element])
    }
  }
}

private let ann = People.Person(name: "Ann <a>", age: 41, admin: true, tags: ["x&y", "z"])
private let bo = People.Person(name: "", age: 7, admin: false, tags: [])

/// Templates bound to a row schema when the library loads: fields by number, errors at load.
@Suite(.timeLimit(.minutes(2))) struct BoundRowsTests {
  static let card =
    "{{#name}}{{name}}{{/name}}{{^name}}anon{{/name}}|{{{name}}}|{{age}}|{{#admin}}A{{/admin}}|{{#tags}}[{{.}}]{{/tags}};"

  @Test func boundTemplatesReadRowsByField() throws {
    let library = try TemplateLibrary(
      templates: ["card": Self.card, "list": "{{#people}}{{> card}}{{/people}}{{^people}}none{{/people}}"],
      bindings: ["card": People.schema])
    let rows = People([ann, bo])
    try expectEqual(
      library.render("list", ["people": .rows(rows)]), "Ann &lt;a&gt;|Ann <a>|41|A|[x&amp;y][z];anon||7||;")
    expectEqual(rows.written, [0, 0, 1, 3, 3, 0, 1])
    try expectEqual(library.render("list", ["people": .rows(People([]))]), "none")
  }

  @Test func boundTemplatesStillRenderOtherValuesByName() throws {
    let library = try TemplateLibrary(templates: ["card": Self.card], bindings: ["card": People.schema])
    let value: MustacheValue = ["name": "Cy", "age": 3, "admin": false, "tags": ["t"]]
    try expectEqual(library.render("card", value), "Cy|Cy|3||[t];")
  }

  @Test func rowsAreEmptyContextsToUnboundTemplates() throws {
    let library = try TemplateLibrary(templates: ["list": "{{#people}}({{name}}{{site}}){{/people}}"])
    try expectEqual(library.render("list", ["site": "s", "people": .rows(People([ann, bo]))]), "(s)(s)")
  }

  @Test(arguments: [
    ("a\n  {{nmae}}", 2, 3, "'nmae' is not a field of person"),
    ("{{#tags}}{{size}}{{/tags}}", 1, 10, "'size' is not a field of person"),
    ("{{#admin}}x{{/admin}}\n{{^ages}}{{/ages}}", 2, 1, "'ages' is not a field of person"),
    ("x {{.}}", 1, 3, "'.' outside a section names no field of person"),
  ])
  func unknownNamesFailAtLoad(source: String, line: Int, column: Int, message: String) {
    #expect {
      try TemplateLibrary(templates: ["card": source], bindings: ["card": People.schema])
    } throws: { error in
      MustacheError.at(.unknownName, "card", line: line, column: column, in: error)?.message == message
    }
  }

  @Test func boundTemplatesCallOnlyTemplatesBoundAlike() {
    #expect {
      try TemplateLibrary(
        templates: ["card": "{{name}}\n {{> other}}", "other": "{{name}}"], bindings: ["card": People.schema])
    } throws: { error in
      guard let error = error as? MustacheError else { return false }
      return error.kind == .bindingMismatch && error.line == 2 && error.column == 2
        && error.message.contains("'other' is not bound to person")
    }
    #expect {
      try TemplateLibrary(templates: ["card": "{{name}}"], bindings: ["missing": People.schema])
    } throws: { ($0 as? MustacheError)?.kind == .missingTemplate }
  }
}
