/// Base64 (RFC 4648 §4) and its URL-safe alphabet without padding (§5), the forms PKCE challenges,
/// Basic credentials and GitHub's legacy node ids use.
public enum Base64 {
  private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Standard base64 with `=` padding.
  public static func encode(_ bytes: [UInt8]) -> String { encode(bytes, table: standard, pad: true) }

  /// base64url without padding (RFC 7636's `BASE64URL-ENCODE`).
  public static func urlEncode(_ bytes: [UInt8]) -> String { encode(bytes, table: url, pad: false) }

  private static func encode(_ bytes: [UInt8], table: [UInt8], pad: Bool) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
      let b0 = Int(bytes[i])
      let b1 = i + 1 < bytes.count ? Int(bytes[i + 1]) : 0
      let b2 = i + 2 < bytes.count ? Int(bytes[i + 2]) : 0
      out.append(table[b0 >> 2])
      out.append(table[(b0 & 3) << 4 | b1 >> 4])
      if i + 1 < bytes.count {
        out.append(table[(b1 & 15) << 2 | b2 >> 6])
      } else if pad {
        out.append(UInt8(ascii: "="))
      }
      if i + 2 < bytes.count {
        out.append(table[b2 & 63])
      } else if pad {
        out.append(UInt8(ascii: "="))
      }
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}
