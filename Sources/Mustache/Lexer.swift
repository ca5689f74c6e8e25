/// Splits template source into text and tag tokens, following Set Delimiter tags.
struct Lexer {
  let source: [UInt8]
  let file: String

  private static let brace = UInt8(ascii: "{")
  private static let closeBrace = UInt8(ascii: "}")

  func error(_ message: String, at offset: Int) -> MustacheError {
    let (line, column) = sourceLocation(of: offset, in: source)
    return MustacheError(kind: .syntax, file: file, line: line, column: column, message: message)
  }

  /// First index of `needle` at or after `from`, or nil.
  func find(_ needle: [UInt8], from: Int) -> Int? {
    guard let first = needle.first, needle.count <= source.count else { return nil }
    var i = from
    let last = source.count - needle.count
    while i <= last {
      if source[i] == first {
        var j = 1
        while j < needle.count && source[i + j] == needle[j] { j += 1 }
        if j == needle.count { return i }
      }
      i += 1
    }
    return nil
  }

  static func isSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
  }

  /// The content between `from` and `to` without surrounding whitespace.
  func trimmed(_ from: Int, _ to: Int) -> (Int, Int) {
    var s = from
    var e = to
    while s < e && Lexer.isSpace(source[s]) { s += 1 }
    while e > s && Lexer.isSpace(source[e - 1]) { e -= 1 }
    return (s, e)
  }

  func tokenize() throws(MustacheError) -> [Token] {
    var tokens: [Token] = []
    var open: [UInt8] = [Lexer.brace, Lexer.brace]
    var close: [UInt8] = [Lexer.closeBrace, Lexer.closeBrace]
    var textStart = 0
    var i = 0
    let n = source.count
    while i < n, let tagStart = find(open, from: i) {
      if tagStart > textStart {
        tokens.append(Token(kind: .text, start: textStart, end: tagStart))
      }
      var p = tagStart + open.count
      guard p < n else { throw error("unclosed tag", at: tagStart) }
      var closing = close
      let kind: Token.Kind
      switch source[p] {
      case Lexer.brace:
        kind = .rawVariable
        closing = [Lexer.closeBrace] + close
        p += 1
      case UInt8(ascii: "&"): kind = .rawVariable; p += 1
      case UInt8(ascii: "#"): kind = .section; p += 1
      case UInt8(ascii: "^"): kind = .inverted; p += 1
      case UInt8(ascii: "/"): kind = .close; p += 1
      case UInt8(ascii: "!"): kind = .comment; p += 1
      case UInt8(ascii: ">"): kind = .partial; p += 1
      case UInt8(ascii: "<"): kind = .parent; p += 1
      case UInt8(ascii: "$"): kind = .block; p += 1
      case UInt8(ascii: "="):
        kind = .delimiters
        closing = [UInt8(ascii: "=")] + close
        p += 1
      default: kind = .variable
      }
      guard let closeAt = find(closing, from: p) else {
        throw error("unclosed tag: expected \(String(decoding: closing, as: UTF8.self))", at: tagStart)
      }
      let end = closeAt + closing.count
      var token = Token(kind: kind, start: tagStart, end: end)
      let (s, e) = trimmed(p, closeAt)
      switch kind {
      case .comment: break
      case .delimiters:
        let parts = source[s..<e].split(whereSeparator: Lexer.isSpace)
        guard parts.count == 2, parts.allSatisfy({ !$0.contains(UInt8(ascii: "=")) }) else {
          throw error("invalid Set Delimiter tag: expected two delimiters without '='", at: tagStart)
        }
        open = Array(parts[0])
        close = Array(parts[1])
      default:
        guard s < e else { throw error("empty tag", at: tagStart) }
        if source[s..<e].contains(where: Lexer.isSpace) {
          throw error("whitespace inside tag name", at: s)
        }
        let name = String(decoding: source[s..<e], as: UTF8.self)
        if kind == .variable || kind == .rawVariable || kind == .section || kind == .inverted {
          if name != "."
            && name.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
          {
            throw error("invalid dotted name '\(name)'", at: s)
          }
        }
        token.name = name
      }
      tokens.append(token)
      textStart = end
      i = end
    }
    if textStart < n {
      tokens.append(Token(kind: .text, start: textStart, end: n))
    }
    return tokens
  }
}
