import Encodings
import HTTP

/// Mends the text of an upstream JSON body so that one bad string cannot fail the whole body:
/// invalid UTF-8 and lone UTF-16 surrogate escapes become U+FFFD, and raw control bytes inside
/// strings (which JSON forbids) are escaped (tab, newline) or dropped. The structure is left alone,
/// so a body that is not JSON still fails to decode.
enum JSONRepair {
  /// `body` mended, or `body` itself when it needed nothing.
  static func repaired(_ body: [UInt8]) -> [UInt8] {
    repaired(body.span) ?? body
  }

  private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
  private static let replacementEscape = Array(#"\uFFFD"#.utf8)

  /// The mended bytes, or nil when nothing needed mending (then no copy is made).
  private static func repaired(_ bytes: Span<UInt8>) -> [UInt8]? {
    var mended = Mended()
    var inString = false
    var i = 0
    let n = bytes.count
    while i < n {
      let byte = bytes[i]
      if byte < 0x80 {
        if byte == UInt8(ascii: "\"") {
          inString.toggle()
          i += 1
        } else if byte == UInt8(ascii: "\\") && inString {
          guard i + 1 < n else { break }
          if bytes[i + 1] == UInt8(ascii: "u"), let unit = hex4(bytes, i + 2) {
            if (0xD800...0xDBFF).contains(unit) {
              if i + 11 < n, bytes[i + 6] == UInt8(ascii: "\\"), bytes[i + 7] == UInt8(ascii: "u"),
                let low = hex4(bytes, i + 8), (0xDC00...0xDFFF).contains(low)
              {
                i += 12
              } else {
                i = mended.replace(bytes, at: i, with: replacementEscape, skip: 6)
              }
            } else if (0xDC00...0xDFFF).contains(unit) {
              i = mended.replace(bytes, at: i, with: replacementEscape, skip: 6)
            } else {
              i += 6
            }
          } else if bytes[i + 1] < 0x80 && bytes[i + 1] >= 0x20 {
            i += 2
          } else {
            i += 1
          }
        } else if byte < 0x20 && inString {
          switch byte {
          case 0x09: i = mended.replace(bytes, at: i, with: Array(#"\t"#.utf8), skip: 1)
          case 0x0A: i = mended.replace(bytes, at: i, with: Array(#"\n"#.utf8), skip: 1)
          default: i = mended.replace(bytes, at: i, with: [], skip: 1)
          }
        } else {
          i += 1
        }
        continue
      }
      let length = validSequenceLength(bytes, i)
      if length > 0 {
        i += length
      } else {
        i = mended.replace(bytes, at: i, with: replacement, skip: max(1, -length))
      }
    }
    return mended.finished(bytes)
  }

  /// The mended copy, made at the first repair. A value the loop passes by `inout`, not variables a
  /// local function captures: in the debug build the loop's reads of captured variables went through
  /// run-time exclusivity checks (`swift_beginAccess`), a third of AppTests' CPU by `perf`.
  private struct Mended {
    var out: [UInt8]? = nil
    /// `bytes[copied..<i]` are still to be appended to `out`.
    var copied = 0

    /// Appends the pending bytes before `i`, then `replacement`; returns where reading goes on
    /// (`skip` input bytes after `i`).
    mutating func replace(_ bytes: Span<UInt8>, at i: Int, with replacement: [UInt8], skip: Int) -> Int {
      if out == nil {
        out = []
        out?.reserveCapacity(bytes.count + 16)
      }
      out?.append(bytes, copied..<i)
      out?.append(contentsOf: replacement)
      copied = i + skip
      return copied
    }

    /// The mended bytes with the rest of `bytes` appended, or nil when nothing was replaced.
    mutating func finished(_ bytes: Span<UInt8>) -> [UInt8]? {
      guard out != nil else { return nil }
      out?.append(bytes, copied..<bytes.count)
      return out
    }
  }

  /// The length of the valid UTF-8 sequence starting at `i` (a non-ASCII lead), or minus the length
  /// of its longest valid prefix when it is broken (at least one byte is then replaced).
  private static func validSequenceLength(_ bytes: Span<UInt8>, _ i: Int) -> Int {
    let lead = bytes[i]
    let count: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: count = 2
    case 0xE0: count = 3; low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: count = 3
    case 0xED: count = 3; high = 0x9F
    case 0xF0: count = 4; low = 0x90
    case 0xF1...0xF3: count = 4
    case 0xF4: count = 4; high = 0x8F
    default: return -1
    }
    for k in 1..<count {
      guard i + k < bytes.count else { return -k }
      let byte = bytes[i + k]
      let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
      guard byte >= lo && byte <= hi else { return -k }
    }
    return count
  }

  /// The value of four hex digits at `start`, or nil.
  private static func hex4(_ bytes: Span<UInt8>, _ start: Int) -> Int? {
    guard start + 4 <= bytes.count else { return nil }
    var value = 0
    for k in start..<start + 4 {
      guard let digit = URLEncoding.hexValue(bytes[k]) else { return nil }
      value = value << 4 | Int(digit)
    }
    return value
  }
}

extension Array<UInt8> {
  /// Appends `bytes[range]` (the repairs' and redactions' unchanged runs).
  mutating func append(_ bytes: Span<UInt8>, _ range: Range<Int>) {
    reserveCapacity(count + range.count)
    for k in range { append(bytes[k]) }
  }
}
