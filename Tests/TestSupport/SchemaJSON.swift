/// A parsed JSON value that keeps integers and booleans apart, for schema checks and test assertions.
public indirect enum SchemaJSON: Equatable, Sendable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([SchemaJSON])
  case object([String: SchemaJSON])

  /// A parse failure with the byte offset.
  public struct ParseError: Error, CustomStringConvertible, Sendable {
    /// Byte offset of the problem.
    public let offset: Int
    /// What went wrong.
    public let message: String
    /// `"message at byte N"`.
    public var description: String { "\(message) at byte \(offset)" }
  }

  /// Parses a complete JSON text (trailing whitespace allowed, nothing else).
  public static func parse(_ bytes: [UInt8]) throws(ParseError) -> SchemaJSON {
    var p = Parser(bytes: bytes)
    let v = try p.value(depth: 0)
    p.skipSpace()
    guard p.i == bytes.count else { throw ParseError(offset: p.i, message: "trailing characters") }
    return v
  }

  /// Parses a JSON string.
  public static func parse(_ text: String) throws(ParseError) -> SchemaJSON { try parse(Array(text.utf8)) }

  /// The member of an object, or nil.
  public subscript(key: String) -> SchemaJSON? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  /// The element of an array, or nil.
  public subscript(index: Int) -> SchemaJSON? {
    if case .array(let a) = self, index >= 0, index < a.count { return a[index] }
    return nil
  }

  /// The string value, or nil.
  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }
  /// The integer value, or nil.
  public var int: Int? {
    if case .int(let v) = self { return v }
    return nil
  }
  /// The boolean value, or nil.
  public var bool: Bool? {
    if case .bool(let v) = self { return v }
    return nil
  }
  /// The elements of an array, or nil.
  public var array: [SchemaJSON]? {
    if case .array(let a) = self { return a }
    return nil
  }
  /// The members of an object, or nil.
  public var object: [String: SchemaJSON]? {
    if case .object(let o) = self { return o }
    return nil
  }

  private struct Parser {
    let bytes: [UInt8]
    var i = 0

    mutating func skipSpace() {
      while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
        i += 1
      }
    }

    func fail(_ m: String) -> ParseError { ParseError(offset: i, message: m) }

    mutating func value(depth: Int) throws(ParseError) -> SchemaJSON {
      guard depth < 512 else { throw fail("nesting too deep") }
      skipSpace()
      guard i < bytes.count else { throw fail("unexpected end") }
      switch bytes[i] {
      case UInt8(ascii: "{"):
        i += 1
        var o: [String: SchemaJSON] = [:]
        if closes(UInt8(ascii: "}")) { return .object(o) }
        while true {
          skipSpace()
          guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected key") }
          let k = try string()
          skipSpace()
          guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
          i += 1
          o[k] = try value(depth: depth + 1)
          if try endsAfterMember(UInt8(ascii: "}")) { return .object(o) }
        }
      case UInt8(ascii: "["):
        i += 1
        var a: [SchemaJSON] = []
        if closes(UInt8(ascii: "]")) { return .array(a) }
        while true {
          a.append(try value(depth: depth + 1))
          if try endsAfterMember(UInt8(ascii: "]")) { return .array(a) }
        }
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"): return try literal("true", .bool(true))
      case UInt8(ascii: "f"): return try literal("false", .bool(false))
      case UInt8(ascii: "n"): return try literal("null", .null)
      default: return try number()
      }
    }

    /// Skips space and takes `close` if it comes next: true for an empty object or array.
    mutating func closes(_ close: UInt8) -> Bool {
      skipSpace()
      guard i < bytes.count, bytes[i] == close else { return false }
      i += 1
      return true
    }

    /// Takes the comma or `close` after a member of an object or array: true when it was `close`.
    mutating func endsAfterMember(_ close: UInt8) throws(ParseError) -> Bool {
      skipSpace()
      guard i < bytes.count else { throw fail("unexpected end") }
      let separator = bytes[i]
      guard separator == UInt8(ascii: ",") || separator == close else {
        throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'")
      }
      i += 1
      return separator == close
    }

    mutating func literal(_ word: String, _ v: SchemaJSON) throws(ParseError) -> SchemaJSON {
      let w = Array(word.utf8)
      guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else {
        throw fail("bad literal")
      }
      i += w.count
      return v
    }

    mutating func number() throws(ParseError) -> SchemaJSON {
      let start = i
      var isInt = true
      while i < bytes.count {
        let b = bytes[i]
        if (b >= 48 && b <= 57) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") {
          i += 1
        } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
          isInt = false
          i += 1
        } else {
          break
        }
      }
      let text = String(decoding: bytes[start..<i], as: UTF8.self)
      if isInt, let v = Int(text) { return .int(v) }
      guard let d = Double(text), !text.isEmpty else { throw fail("bad number") }
      return .double(d)
    }

    mutating func string() throws(ParseError) -> String {
      i += 1
      var out: [UInt8] = []
      while i < bytes.count {
        let b = bytes[i]
        if b == UInt8(ascii: "\"") {
          i += 1
          guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8") }
          return s
        }
        if b < 0x20 { throw fail("control character in string") }
        if b == UInt8(ascii: "\\") {
          i += 1
          guard i < bytes.count else { throw fail("unexpected end") }
          let e = bytes[i]
          i += 1
          switch e {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "u"):
            var code = try hex4()
            if code >= 0xD800 && code < 0xDC00 {
              guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
              else {
                throw fail("lone surrogate")
              }
              i += 2
              let low = try hex4()
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else { throw fail("bad escape") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
          default: throw fail("bad escape")
          }
        } else {
          out.append(b)
          i += 1
        }
      }
      throw fail("unterminated string")
    }

    mutating func hex4() throws(ParseError) -> UInt32 {
      guard i + 4 <= bytes.count,
        let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
      else { throw fail("bad \\u escape") }
      i += 4
      return v
    }
  }
}
