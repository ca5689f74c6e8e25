/// RFC 8288 `Link` header parsing, by relation rather than position.
public enum LinkHeader {
  /// Maps each `rel` value (lower-cased; space-separated relations each count) to its target URL.
  /// The first link for a relation wins. Malformed parts are skipped; this never traps.
  public static func parse(_ value: String) -> [String: String] {
    var result: [String: String] = [:]
    let bytes = Array(value.utf8)
    let n = bytes.count
    var i = 0
    while i < n {
      while i < n && (bytes[i] == 32 || bytes[i] == 9 || bytes[i] == UInt8(ascii: ",")) { i += 1 }
      guard i < n else { break }
      guard bytes[i] == UInt8(ascii: "<") else {
        i = skipToNextLink(bytes, from: i)
        continue
      }
      let start = i + 1
      var end = start
      while end < n && bytes[end] != UInt8(ascii: ">") { end += 1 }
      guard end < n else { break }
      let url = String(decoding: bytes[start..<end], as: UTF8.self)
      i = end + 1
      var rel: String?
      // Parameters until the next top-level comma.
      while i < n && bytes[i] != UInt8(ascii: ",") {
        guard bytes[i] == UInt8(ascii: ";") else {
          i += 1
          continue
        }
        i += 1
        while i < n && (bytes[i] == 32 || bytes[i] == 9) { i += 1 }
        let nameStart = i
        while i < n && !isDelimiter(bytes[i]) { i += 1 }
        let name = bytes[nameStart..<i]
        while i < n && (bytes[i] == 32 || bytes[i] == 9) { i += 1 }
        guard i < n && bytes[i] == UInt8(ascii: "=") else { continue }
        i += 1
        while i < n && (bytes[i] == 32 || bytes[i] == 9) { i += 1 }
        var parsed: [UInt8] = []
        if i < n && bytes[i] == UInt8(ascii: "\"") {
          i += 1
          while i < n && bytes[i] != UInt8(ascii: "\"") {
            if bytes[i] == UInt8(ascii: "\\") && i + 1 < n { i += 1 }
            parsed.append(bytes[i])
            i += 1
          }
          if i < n { i += 1 }
        } else {
          while i < n && !isDelimiter(bytes[i]) {
            parsed.append(bytes[i])
            i += 1
          }
        }
        if rel == nil && name.count == 3 && lowered(name) == "rel" {
          rel = String(decoding: parsed, as: UTF8.self)
        }
      }
      guard let rel else { continue }
      for relation in rel.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
        let key = relation.lowercased()
        if result[key] == nil { result[key] = url }
      }
    }
    return result
  }

  private static func isDelimiter(_ b: UInt8) -> Bool {
    b == UInt8(ascii: ";") || b == UInt8(ascii: ",") || b == UInt8(ascii: "=") || b == 32 || b == 9
  }

  private static func lowered(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self)
  }

  /// Skips a malformed link up to (not past) the next comma outside quotes.
  private static func skipToNextLink(_ bytes: [UInt8], from index: Int) -> Int {
    var i = index
    var quoted = false
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "\"") { quoted.toggle() }
      if !quoted && bytes[i] == UInt8(ascii: ",") { return i }
      i += 1
    }
    return i
  }
}
