/// Percent-encoding for the URLs the views link to, byte-wise (the same unreserved set as RFC 3986,
/// so the output equals `URLEncoding.percentEncode`, in one allocation).
enum URLText {
  private static let hex = Array("0123456789ABCDEF".utf8)

  /// Everything but letters, digits and `-._~` percent-encoded.
  static func encode(_ text: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 8)
    append(text, to: &out)
    return String(decoding: out, as: UTF8.self)
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
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.append(byte)
      default:
        out.append(UInt8(ascii: "%"))
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0xF)])
      }
    }
  }
}
