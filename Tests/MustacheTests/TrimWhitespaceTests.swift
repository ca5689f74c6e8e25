import Mustache
import TestSupport
import Testing

/// `trimWhitespace`: runs of whitespace holding a line break become that line break; nothing else moves.
@Suite(.timeLimit(.minutes(2))) struct TrimWhitespaceTests {
  @Test func indentationAndLineBreakRunsBecomeOneLineBreak() throws {
    let page = """
      <ul>
        {{#items}}
          <li>{{.}}  and  {{.}}</li>
        {{/items}}
      </ul>
      <p>inline
         text</p>

      """
    let library = try TemplateLibrary(templates: ["page": page], trimWhitespace: true)
    try expectEqual(
      library.render("page", ["items": ["a", "b"]]),
      "<ul>\n<li>a  and  a</li>\n<li>b  and  b</li>\n</ul>\n<p>inline\ntext</p>\n")
    let untrimmed = try TemplateLibrary(templates: ["page": page])
    expectTrue(try untrimmed.render("page", ["items": ["a"]]).contains("    <li>a  and  a</li>\n"))
  }

  @Test func preformattedTextIsKept() throws {
    let page =
      "<div>\n  <PRE class=x>\n  {{a}}\n    b\n</pre>\n  <textarea>\n  c\n</textarea>\n  <pref>\n  d</pref>\n"
    let library = try TemplateLibrary(templates: ["page": page], trimWhitespace: true)
    try expectEqual(
      library.render("page", ["a": "A"]),
      "<div>\n<PRE class=x>\n  A\n    b\n</pre>\n<textarea>\n  c\n</textarea>\n<pref>\nd</pref>\n")
  }

  @Test func partialCallsLoseTheirIndentation() throws {
    let library = try TemplateLibrary(
      templates: ["page": "<main>\n    {{> row}}\n</main>\n", "row": "<p>\n  x\n</p>\n"], trimWhitespace: true
    )
    try expectEqual(library.render("page", [:]), "<main>\n<p>\nx\n</p>\n</main>\n")
  }
}
