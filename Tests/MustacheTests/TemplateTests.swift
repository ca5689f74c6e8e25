import Foundation
import Mustache
import TestSupport
import Testing

extension MustacheError {
  /// `error` as a Mustache error of `kind` at `file`:`line`:`column`, or nil when it is anything else.
  static func at(_ kind: Kind, _ file: String, line: Int, column: Int, in error: any Error) -> MustacheError?
  {
    guard let e = error as? MustacheError, e.kind == kind, e.file == file, e.line == line, e.column == column
    else { return nil }
    return e
  }
}

@Suite(.timeLimit(.minutes(2))) struct TemplateTests {
  /// The example in `TemplateLibrary`'s documentation, as written there.
  @Test func theLibraryDocExampleRendersWhatItSays() throws {
    let library = try TemplateLibrary(templates: [
      "page": "<ul>{{#items}}{{> item}}{{/items}}</ul>", "item": "<li>{{name}}</li>",
    ])
    let html = try library.render("page", .object(["items": .list([.object(["name": .string("a<b")])])]))
    expectEqual(html, "<ul><li>a&lt;b</li></ul>")
  }

  @Test func escapesTheFiveCharactersAndEmitsHTMLRaw() throws {
    let t = try Template("{{s}}|{{{s}}}|{{&s}}|{{h}}")
    let out = t.render(["s": "<a href=\"x\">'&'</a>", "h": .html("<b>ok</b>")])
    expectEqual(
      out,
      "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;|<a href=\"x\">'&'</a>|<a href=\"x\">'&'</a>|<b>ok</b>"
    )
  }

  @Test func rendersNumbersBoolsAndEmptyValues() throws {
    let t = try Template("{{i}} {{n}} {{d}} {{w}} {{b}} [{{z}}] [{{l}}] [{{missing}}]")
    let out = t.render(["i": -42, "n": .int(Int.min), "d": 1.5, "w": 3.0, "b": true, "z": nil, "l": [1]])
    expectEqual(out, "-42 \(Int.min) 1.5 3 true [] [] []")
  }

  @Test func truthiness() throws {
    let t = try Template("{{#v}}T{{/v}}{{^v}}F{{/v}}")
    let cases: [(MustacheValue, String)] = [
      (.null, "F"), (false, "F"), ([], "F"), ("", "F"), (.html(""), "F"),
      (true, "T"), (0, "T"), ("x", "T"), ([:], "T"), ([1, 2], "TT"),
    ]
    for (value, expected) in cases {
      expectEqual(t.render(["v": value]), expected, "\(value)")
    }
  }

  @Test func contextStackAndDottedNames() throws {
    let t = try Template("{{#repo}}{{name}} by {{owner.login}} in {{site}}{{/repo}} {{repo.owner.login}}")
    let out = t.render(["site": "GH", "repo": ["name": "r", "owner": ["login": "o"]]])
    expectEqual(out, "r by o in GH o")
  }

  @Test func representableConversions() throws {
    let topics: [String] = ["a", "b"]
    let missing: String? = nil
    let dict: [String: Int] = ["n": 3]
    let value: MustacheValue = [
      "topics": topics.mustacheValue, "missing": missing.mustacheValue, "dict": dict.mustacheValue,
      "flag": true.mustacheValue, "x": 2.5.mustacheValue,
    ]
    let t = try Template(
      "{{#topics}}<{{.}}>{{/topics}}{{^missing}}-{{/missing}}{{dict.n}}{{#flag}}!{{/flag}}{{x}}")
    expectEqual(t.render(value), "<a><b>-3!2.5")
  }

  @Test func rendersIntoAnExistingBuffer() throws {
    let t = try Template("b{{x}}")
    var buffer = Array("a".utf8)
    t.render(["x": "c"], into: &buffer)
    expectEqual(String(decoding: buffer, as: UTF8.self), "abc")
  }

  @Test(arguments: [
    ("{{#a}}\n{{/b}}", 2, 1, "does not match"),
    ("x\n  {{#a}}", 2, 3, "never closed"),
    ("ab{{/a}}", 1, 3, "without an opening"),
    ("é{{x", 1, 2, "unclosed tag"),
    ("{{=a=}}", 1, 1, "Set Delimiter"),
    ("\n\n {{}}", 3, 2, "empty tag"),
    ("{{a b}}", 1, 3, "whitespace"),
    ("{{a..b}}", 1, 3, "dotted"),
  ])
  func syntaxErrorsHaveLineAndColumn(source: String, line: Int, column: Int, message: String) {
    #expect {
      try Template(source, name: "t.mustache")
    } throws: { error in
      guard let e = MustacheError.at(.syntax, "t.mustache", line: line, column: column, in: error) else {
        return false
      }
      return e.message.contains(message) && e.description.hasPrefix("t.mustache:\(line):\(column): ")
    }
  }

  @Test func deepNestingIsAnError() {
    let source = String(repeating: "{{#a}}", count: 500) + String(repeating: "{{/a}}", count: 500)
    #expect { try Template(source) } throws: { ($0 as? MustacheError)?.kind == .syntax }
  }

  @Test func missingPartialRendersEmptyWithoutLibrary() throws {
    try expectEqual(Template("[{{>nope}}]").render([:]), "[]")
  }
}

@Suite(.timeLimit(.minutes(2))) struct TemplateLibraryTests {
  @Test func reportsMissingPartialAtLoad() {
    #expect {
      try TemplateLibrary(templates: ["page": "ok\n  {{> partials/card}}", "other": "x"])
    } throws: { error in
      MustacheError.at(.missingTemplate, "page", line: 2, column: 3, in: error)?.message.contains(
        "partials/card")
        == true
    }
    #expect {
      try TemplateLibrary(templates: ["page": "{{<layout}}{{/layout}}"])
    } throws: { ($0 as? MustacheError)?.kind == .missingTemplate }
  }

  @Test func unknownTemplateNameThrows() throws {
    let library = try TemplateLibrary(templates: ["a": "x"])
    #expect { try library.render("b", [:]) } throws: { ($0 as? MustacheError)?.kind == .missingTemplate }
    expectTrue(library.template(named: "b") == nil)
    try expectEqual(library.render("a", [:]), "x")
  }

  @Test func runawayRecursionStopsWithAnError() throws {
    let library = try TemplateLibrary(templates: ["a": "{{>a}}{{>a}}", "b": "x{{>b}}"])
    #expect { try library.render("a", [:]) } throws: { ($0 as? MustacheError)?.kind == .limitExceeded }
    #expect { try library.render("b", [:]) } throws: { ($0 as? MustacheError)?.kind == .limitExceeded }
    // Without a library error path, a single render still ends.
    let text = library.template(named: "b")?.render([:], partials: library) ?? ""
    expectTrue(text.hasPrefix("xxx"))
  }

  @Test func recursivePartialsFollowData() throws {
    let library = try TemplateLibrary(templates: ["node": "{{name}}({{#kids}}{{>node}}{{/kids}})"])
    let tree: MustacheValue = [
      "name": "a", "kids": [["name": "b", "kids": []], ["name": "c", "kids": []]],
    ]
    try expectEqual(library.render("node", tree), "a(b()c())")
  }

  @Test func layoutWithBlocks() throws {
    let library = try TemplateLibrary(templates: [
      "layout":
        "<html>\n  <title>{{$title}}Default{{/title}}</title>\n  <body>\n    {{$body}}\n    {{/body}}\n  </body>\n</html>\n",
      "page":
        "{{<layout}}\n{{$title}}Search: {{q}}{{/title}}\n{{$body}}\n<ul>\n  <li>{{q}}</li>\n</ul>\n{{/body}}\n{{/layout}}\n",
    ])
    let out = try library.render("page", ["q": "<x>"])
    expectEqual(
      out,
      "<html>\n  <title>Search: &lt;x&gt;</title>\n  <body>\n    <ul>\n      <li>&lt;x&gt;</li>\n    </ul>\n  </body>\n</html>\n"
    )
  }

  @Test func loadsAFolderRecursively() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("mustache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("partials/deep"), withIntermediateDirectories: true)
    try "<main>{{#repos}}{{> partials/card}}{{/repos}}</main>".write(
      to: root.appendingPathComponent("page.mustache"), atomically: true, encoding: .utf8)
    try "<p>{{name}}</p>{{>partials/deep/star}}".write(
      to: root.appendingPathComponent("partials/card.mustache"), atomically: true, encoding: .utf8)
    try "★".write(
      to: root.appendingPathComponent("partials/deep/star.mustache"), atomically: true, encoding: .utf8)
    try "ignored {{".write(to: root.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
    let library = try TemplateLibrary(directory: root.path)
    expectEqual(library.names, ["page", "partials/card", "partials/deep/star"])
    try expectEqual(library.render("page", ["repos": [["name": "a&b"]]]), "<main><p>a&amp;b</p>★</main>")

    try "{{#open}}\nline".write(
      to: root.appendingPathComponent("partials/broken.mustache"), atomically: true, encoding: .utf8)
    #expect {
      try TemplateLibrary(directory: root.path)
    } throws: { error in
      guard let e = error as? MustacheError else { return false }
      return e.kind == .syntax && e.file.hasSuffix("partials/broken.mustache") && e.line == 1 && e.column == 1
    }
  }

  @Test func missingFolderThrows() {
    #expect {
      try TemplateLibrary(directory: "/nonexistent/templates")
    } throws: { ($0 as? MustacheError)?.kind == .unreadable }
  }
}

@Suite(.timeLimit(.minutes(2))) struct VocabularyTests {
  static let page = MustacheSchema("page view", names: ["title", "items", "label", "link.href"])

  @Test(arguments: [
    ("<h1>{{title}}</h1>\n  {{titel}}", 2, 3, "'titel' is not a name of page view"),
    ("{{#items}}{{label}}{{size}}{{/items}}", 1, 20, "'size' is not a name of page view"),
    ("{{^link.url}}none{{/link.url}}", 1, 1, "'link.url' is not a name of page view"),
  ])
  func unknownNamesFailAtLoad(source: String, line: Int, column: Int, message: String) {
    #expect {
      try TemplateLibrary(templates: ["page": source], vocabulary: { _ in Self.page })
    } throws: { error in
      MustacheError.at(.unknownName, "page", line: line, column: column, in: error)?.message == message
    }
  }

  @Test func knownNamesRenderByLookup() throws {
    let library = try TemplateLibrary(
      templates: ["page": "{{title}}:{{#items}}[{{label}}{{.}}]{{/items}}{{link.href}}"],
      vocabulary: { _ in Self.page })
    let value: MustacheValue = ["title": "T", "items": [["label": "a"], "b"], "link": ["href": "/x"]]
    try expectEqual(library.render("page", value), "T:[a][b]/x")
  }

  @Test func aTemplateWithoutAVocabularyFailsAtLoad() {
    #expect {
      try TemplateLibrary(
        templates: ["page": "{{title}}", "other": "x"], vocabulary: { $0 == "page" ? Self.page : nil })
    } throws: { error in
      guard let error = error as? MustacheError else { return false }
      return error.kind == .unbound && error.file == "other"
    }
  }

  @Test func boundTemplatesAreNotCheckedAgainstAVocabulary() throws {
    let rows = MustacheSchema("row", names: ["size"])
    let library = try TemplateLibrary(
      templates: ["page": "{{title}}", "row": "{{size}}"], bindings: ["row": rows],
      vocabulary: { _ in Self.page })
    try expectEqual(library.render("page", ["title": "ok"]), "ok")
  }
}
