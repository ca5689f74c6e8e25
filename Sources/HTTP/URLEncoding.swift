/// Percent-decoding and query parsing for request targets.
public enum URLEncoding {
  /// Decodes `%XX` escapes (and `+` as space when `plusAsSpace`). Returns nil on a malformed
  /// escape or when the result is not valid UTF-8.
  public static func percentDecode<S: StringProtocol>(_ s: S, plusAsSpace: Bool = false) -> String? {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    var it = s.utf8.makeIterator()
    while let b = it.next() {
      if b == UInt8(ascii: "%") {
        guard let h = it.next(), let l = it.next(), let hi = hexValue(h), let lo = hexValue(l) else {
          return nil
        }
        out.append(hi << 4 | lo)
      } else if plusAsSpace && b == UInt8(ascii: "+") {
        out.append(UInt8(ascii: " "))
      } else {
        out.append(b)
      }
    }
    return String(validating: out, as: UTF8.self)
  }

  /// Percent-encodes everything except RFC 3986 unreserved characters.
  public static func percentEncode(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    let hex = Array("0123456789ABCDEF".utf8)
    for b in s.utf8 {
      switch b {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(b))
      default:
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
      }
    }
    return out
  }

  /// Parses `a=1&b=2` into decoded pairs; malformed pairs are skipped.
  public static func parseQuery<S: StringProtocol>(_ query: S) -> [(name: String, value: String)] {
    var items: [(name: String, value: String)] = []
    for part in query.split(separator: "&", omittingEmptySubsequences: true) {
      let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecode(pieces[0], plusAsSpace: true) else { continue }
      let raw = pieces.count > 1 ? pieces[1] : ""
      guard let value = percentDecode(raw, plusAsSpace: true) else { continue }
      items.append((name: name, value: value))
    }
    return items
  }

  /// Builds `a=1&b=2` from pairs, encoding each name and value.
  public static func formatQuery(_ items: [(String, String)]) -> String {
    items.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
  }

  /// The value of one hex digit (either case), or nil.
  public static func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
