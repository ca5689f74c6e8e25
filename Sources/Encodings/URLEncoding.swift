/// Percent-decoding and query parsing for request targets.
public enum URLEncoding {
  /// Decodes `%XX` escapes (and `+` as space when `plusAsSpace`). Returns nil on a malformed
  /// escape or when the result is not valid UTF-8.
  public static func percentDecode<S: StringProtocol>(_ s: S, plusAsSpace: Bool = false) -> String? {
    if let decoded = s.utf8.withContiguousStorageIfAvailable({ percentDecode($0, plusAsSpace: plusAsSpace) })
    {
      return decoded
    }
    return percentDecode(Array(s.utf8), plusAsSpace: plusAsSpace)
  }

  /// `percentDecode` of UTF-8 bytes; text without escapes is copied as it is.
  public static func percentDecode(_ bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String?
  {
    var ascii = true
    var plain = true
    for byte in bytes {
      if byte == UInt8(ascii: "%") || (plusAsSpace && byte == UInt8(ascii: "+")) { plain = false }
      if byte >= 0x80 { ascii = false }
    }
    // ASCII is valid UTF-8 as it is: no validation pass (nearly every parameter a request sends).
    if plain && ascii { return String(decoding: bytes, as: UTF8.self) }
    if plain { return String(validating: bytes, as: UTF8.self) }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      let b = bytes[i]
      if b == UInt8(ascii: "%") {
        guard i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else {
          return nil
        }
        out.append(hi << 4 | lo)
        i += 3
        continue
      }
      out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
      i += 1
    }
    return String(validating: out, as: UTF8.self)
  }

  /// `percentDecode` of UTF-8 read in place (`forEachQueryItem`'s pairs).
  public static func percentDecode(_ bytes: Span<UInt8>, plusAsSpace: Bool = false) -> String? {
    // The buffer is only read during the call, while the span's owner keeps it alive.
    bytes.withUnsafeBufferPointer { percentDecode($0, plusAsSpace: plusAsSpace) }
  }

  private static func percentDecode(_ bytes: [UInt8], plusAsSpace: Bool) -> String? {
    // The array's buffer is only read during the call.
    bytes.withUnsafeBufferPointer { percentDecode($0, plusAsSpace: plusAsSpace) }
  }

  /// Percent-encodes everything except RFC 3986 unreserved characters, in one allocation.
  public static func percentEncode(_ s: String) -> String {
    let bytes = s.utf8.count
    guard !isUnreserved(s) else { return s }
    return String(unsafeUninitializedCapacity: bytes * 3) { buffer in
      var count = 0
      percentEncode(s) { byte in
        buffer[count] = byte
        count += 1
      }
      return count
    }
  }

  /// Hands `emit` the bytes of `text` with everything but letters, digits and `-._~` percent-encoded:
  /// the one encoder behind every URL the project writes. Inlinable, so a renderer's loop keeps it
  /// specialised and free of calls per byte.
  @inlinable
  public static func percentEncode(_ text: String, _ emit: (UInt8) -> Void) {
    percentEncode(utf8: text.utf8, emit)
  }

  /// `percentEncode(_:_:)` over UTF-8 bytes the caller holds.
  @inlinable
  public static func percentEncode<Bytes: Sequence<UInt8>>(utf8 bytes: Bytes, _ emit: (UInt8) -> Void) {
    for byte in bytes {
      if isUnreserved(byte) {
        emit(byte)
      } else {
        emit(UInt8(ascii: "%"))
        emit(hexDigit(byte >> 4))
        emit(hexDigit(byte & 0xF))
      }
    }
  }

  /// Whether `text` is the same percent-encoded (every GitHub login and most repository names).
  @inlinable
  public static func isUnreserved(_ text: String) -> Bool {
    // Native strings are read in place (a byte loop, not the generic UTF-8 view iterator).
    text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isUnreserved) }
      ?? text.utf8.allSatisfy(isUnreserved)
  }

  /// Letters, digits and `-._~`: the bytes percent-encoding leaves as they are.
  @inlinable
  public static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  /// One uppercase hex digit (arithmetic: a shared table would be retained on every thread).
  @inlinable
  static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
  }

  /// Parses `a=1&b=2` into decoded pairs; malformed pairs are skipped.
  public static func parseQuery<S: StringProtocol>(_ query: S) -> [(name: String, value: String)] {
    var items: [(name: String, value: String)] = []
    forEachQueryItem(Substring(query)) { name, value in
      guard let name = percentDecode(name, plusAsSpace: true),
        let value = percentDecode(value, plusAsSpace: true)
      else { return }
      items.append((name: name, value: value))
    }
    return items
  }

  /// Hands `body` the bytes of each `name=value` pair of `query` still encoded, in order, empty pairs
  /// skipped (a pair without `=` has an empty value). It scans the bytes in place and builds nothing,
  /// so a route that wants a few parameters decodes only those; the buffers live for the call only.
  public static func forEachQueryItem(
    _ query: Substring, _ body: (Span<UInt8>, Span<UInt8>) -> Void
  ) {
    var query = query
    query.withUTF8 { bytes in
      var start = 0
      while start < bytes.count {
        var end = start
        while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
        if start < end {
          var equals = start
          while equals < end && bytes[equals] != UInt8(ascii: "=") { equals += 1 }
          body(bytes.span.extracting(start..<equals), bytes.span.extracting(min(equals + 1, end)..<end))
        }
        start = end + 1
      }
    }
  }

  /// Builds `a=1&b=2` from pairs, encoding each name and value.
  public static func formatQuery(_ items: [(String, String)]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for (index, item) in items.enumerated() {
      if index > 0 { out.append(UInt8(ascii: "&")) }
      percentEncode(item.0) { out.append($0) }
      out.append(UInt8(ascii: "="))
      percentEncode(item.1) { out.append($0) }
    }
    return String(decoding: out, as: UTF8.self)
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
