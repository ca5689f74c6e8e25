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
    // Links and cache keys are encoded on every request: text needing no escape is returned as is,
    // and the rest is written as bytes into one buffer.
    var escapes = 0
    for b in s.utf8 where !isUnreserved(b) { escapes += 1 }
    if escapes == 0 { return s }
    let hex: StaticString = "0123456789ABCDEF"
    return String(unsafeUninitializedCapacity: s.utf8.count + 2 * escapes) { out in
      // Writes one byte per unreserved byte and three per other byte: exactly the capacity.
      var i = 0
      for b in s.utf8 {
        if isUnreserved(b) {
          out[i] = b
          i += 1
        } else {
          out[i] = UInt8(ascii: "%")
          out[i + 1] = hex.utf8Start[Int(b >> 4)]
          out[i + 2] = hex.utf8Start[Int(b & 0xF)]
          i += 3
        }
      }
      return i
    }
  }

  /// Whether `b` is an RFC 3986 unreserved character.
  private static func isUnreserved(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
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
