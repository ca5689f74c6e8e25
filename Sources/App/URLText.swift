/// Percent-encoding for the URLs the views link to, byte-wise (the same unreserved set as RFC 3986,
/// so the output equals `URLEncoding.percentEncode`, in one allocation).
enum URLText {
  /// Everything but letters, digits and `-._~` percent-encoded.
  static func encode(_ text: String) -> String {
    TextBuilder.make(capacity: TextBuilder.encodedCapacity(text)) { $0.encode(text) }
  }

  /// `a=1&b=2` with names and values encoded.
  static func query(_ items: [(String, String)]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for (index, item) in items.enumerated() {
      if index > 0 { out.append(UInt8(ascii: "&")) }
      append(item.0, to: &out)
      out.append(UInt8(ascii: "="))
      append(item.1, to: &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func append(_ text: String, to out: inout [UInt8]) {
    percentEncode(text) { out.append($0) }
  }

  /// Hands `emit` the bytes of `text` with everything but letters, digits and `-._~` percent-encoded:
  /// the one encoder behind every URL the views write.
  static func percentEncode(_ text: String, _ emit: (UInt8) -> Void) {
    for byte in text.utf8 {
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
  static func isUnreserved(_ text: String) -> Bool {
    // Native strings are read in place (a byte loop, not the generic UTF-8 view iterator).
    text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isUnreserved) }
      ?? text.utf8.allSatisfy(isUnreserved)
  }

  /// Letters, digits and `-._~`: the bytes percent-encoding leaves as they are.
  private static func isUnreserved(_ byte: UInt8) -> Bool {
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
  private static func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
  }
}
