import Mustache
import TestSupport
import Testing

/// A generated template tree with a straightforward reference renderer.
indirect enum Piece {
  case text(String)
  case variable(String, raw: Bool)
  case section(String, [Piece])
  case inverted(String, [Piece])
  case comment(String)

  var source: String {
    switch self {
    case .text(let s): return s
    case .variable(let n, let raw): return raw ? "{{{\(n)}}}" : "{{\(n)}}"
    case .section(let n, let inner): return "{{#\(n)}}" + inner.map(\.source).joined() + "{{/\(n)}}"
    case .inverted(let n, let inner): return "{{^\(n)}}" + inner.map(\.source).joined() + "{{/\(n)}}"
    case .comment(let s): return "{{!\(s)}}"
    }
  }
}

func referenceEscape(_ s: String) -> String {
  var out = ""
  for c in s {
    switch c {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&#39;"
    default: out.append(c)
    }
  }
  return out
}

/// Renders pieces the obvious way (single-segment names only, no standalone lines involved).
func referenceRender(_ pieces: [Piece], _ stack: [MustacheValue]) -> String {
  func find(_ name: String) -> MustacheValue? {
    for frame in stack.reversed() {
      if case .object(let d) = frame, let v = d[name] { return v }
    }
    return nil
  }
  func truthy(_ v: MustacheValue?) -> Bool {
    switch v {
    case nil, .null?, .bool(false)?: return false
    case .list(let l)?: return !l.isEmpty
    case .string(let s)?: return !s.isEmpty
    default: return true
    }
  }
  var out = ""
  for piece in pieces {
    switch piece {
    case .text(let s): out += s
    case .comment: break
    case .variable(let n, let raw):
      switch find(n) {
      case .string(let s)?: out += raw ? s : referenceEscape(s)
      case .int(let i)?: out += String(i)
      case .bool(let b)?: out += b ? "true" : "false"
      default: break
      }
    case .section(let n, let inner):
      let v = find(n)
      guard truthy(v), let v else { continue }
      if case .list(let items) = v {
        for item in items { out += referenceRender(inner, stack + [item]) }
      } else {
        out += referenceRender(inner, stack + [v])
      }
    case .inverted(let n, let inner):
      if !truthy(find(n)) { out += referenceRender(inner, stack) }
    }
  }
  return out
}

@Suite(.timeLimit(.minutes(2))) struct PropertyTests {
  static let alphabet: [Character] = Array("ab <>&\"'xyz{}\t\n\r.#/é😀=!^|")

  static func randomText(_ rng: inout SeededGenerator, maxLength: Int = 20) -> String {
    var s = ""
    for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
      s.append(alphabet.randomElement(using: &rng) ?? "a")
    }
    return s
  }

  /// Text that cannot contain a tag: no "{{" pair (a brace is never followed by another).
  static func tagFreeText(_ rng: inout SeededGenerator) -> String {
    var s = ""
    for c in randomText(&rng, maxLength: 40) {
      if c == "{" && s.last == "{" { continue }
      s.append(c)
    }
    if s.last == "{" { s.removeLast() }
    return s
  }

  @Test func textWithoutTagsRendersToItself() throws {
    var rng = SeededGenerator(state: 1)
    for _ in 0..<2000 {
      let text = PropertyTests.tagFreeText(&rng)
      let template = try Template(text)
      expectEqual(template.render(["a": 1]), text)
    }
  }

  @Test func escapingMatchesReference() throws {
    var rng = SeededGenerator(state: 2)
    let escaped = try Template("{{v}}")
    let raw = try Template("{{{v}}}")
    let ampersand = try Template("{{& v}}")
    let html = try Template("{{h}}")
    for _ in 0..<2000 {
      let s = PropertyTests.randomText(&rng, maxLength: 60)
      expectEqual(escaped.render(["v": .string(s)]), referenceEscape(s))
      expectEqual(raw.render(["v": .string(s)]), s)
      expectEqual(ampersand.render(["v": .string(s)]), s)
      expectEqual(html.render(["h": .html(s)]), s)
    }
  }

  static let names = ["a", "b", "c", "d"]

  static func randomPieces(_ rng: inout SeededGenerator, depth: Int) -> [Piece] {
    var pieces: [Piece] = []
    for _ in 0..<Int.random(in: 0...5, using: &rng) {
      let name = names.randomElement(using: &rng) ?? "a"
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<3:
        // Texts avoid newlines and blanks-only content, so no tag is ever standalone.
        let t = tagFreeText(&rng).filter { $0 != "\n" && $0 != "\r" && $0 != "{" && $0 != "}" }
        pieces.append(.text("<" + t))
      case 3..<6: pieces.append(.variable(name, raw: Bool.random(using: &rng)))
      case 6 where depth < 4: pieces.append(.section(name, randomPieces(&rng, depth: depth + 1)))
      case 7 where depth < 4: pieces.append(.inverted(name, randomPieces(&rng, depth: depth + 1)))
      case 8: pieces.append(.comment("c"))
      default: pieces.append(.text("|"))
      }
    }
    return pieces
  }

  static func randomValue(_ rng: inout SeededGenerator, depth: Int) -> MustacheValue {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: return .string(randomText(&rng, maxLength: 8))
    case 1: return .int(Int.random(in: -1000...1000, using: &rng))
    case 2: return .bool(Bool.random(using: &rng))
    case 3: return .null
    case 4 where depth < 3:
      return .list((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    default:
      var object: [String: MustacheValue] = [:]
      if depth < 3 {
        for name in names where Bool.random(using: &rng) {
          object[name] = randomValue(&rng, depth: depth + 1)
        }
      }
      return .object(object)
    }
  }

  @Test func wellFormedTreesRenderLikeTheReference() throws {
    var rng = SeededGenerator(state: 3)
    for _ in 0..<1500 {
      let pieces = [Piece.text("<")] + PropertyTests.randomPieces(&rng, depth: 0)
      let source = pieces.map(\.source).joined()
      let data = PropertyTests.randomValue(&rng, depth: 0)
      let template = try Template(source)
      let rendered = template.render(data)
      let expected = referenceRender(pieces, [data])
      expectEqual(rendered, expected, "template: \(source)")
      if rendered != expected { break }
    }
  }

  static let fragments = [
    "{{", "}}", "{{{", "}}}", "#", "^", "/", "!", ">", "<", "$", "&", "=", "a", "b", ".", " ", "\n", "\r\n",
    "{{=| |=}}", "|", "{{#a}}", "{{/a}}", "{{>p}}", "{{<p}}", "{{/p}}", "{{$b}}", "{{/b}}", "é", "\t",
  ]

  @Test func garbageNeverCrashes() throws {
    var rng = SeededGenerator(state: 4)
    let data: MustacheValue = ["a": [1, ["b": "x"]], "b": "<b>", "p": true]
    var parsed = 0
    for _ in 0..<1500 {
      var source = ""
      for _ in 0..<Int.random(in: 0...30, using: &rng) {
        source += PropertyTests.fragments.randomElement(using: &rng) ?? ""
      }
      do {
        let template = try Template(source, name: "g")
        _ = template.render(data)
        let library = try TemplateLibrary(templates: ["p": source, "main": "{{>p}}{{<p}}{{$b}}x{{/b}}{{/p}}"])
        _ = try? library.render("main", data)
        parsed += 1
      } catch {
        expectTrue(error.file == "g" || error.file == "p")
        expectTrue(error.line >= 1 && error.column >= 1)
      }
    }
    expectTrue(parsed > 50)
  }
}
