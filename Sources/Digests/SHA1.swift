/// SHA-1 (FIPS 180-4), only to name Lua scripts the way Redis does (`EVALSHA`); not for security.
///
/// ```swift
/// let name = SHA1.hex(Array(script.utf8))  // 40 lowercase hex digits
/// ```
public enum SHA1 {
  /// The digest of `message` as 40 lowercase hex digits.
  public static func hex(_ message: [UInt8]) -> String {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    let padded = BlockPadding.padded(message)
    var w = [UInt32](repeating: 0, count: 80)
    for chunk in stride(from: 0, to: padded.count, by: 64) {
      BlockPadding.loadWords(padded, at: chunk, into: &w)
      for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
      var (a, b, c, d, e) = h
      for i in 0..<80 {
        let f: UInt32
        let k: UInt32
        switch i {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let t = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
        (e, d, c, b, a) = (d, c, rotate(b, 30), a, t)
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for word in [h.0, h.1, h.2, h.3, h.4] {
      for shift in stride(from: 28, through: 0, by: -4) {
        out.append(digits[Int((word >> UInt32(shift)) & 0xF)])
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
}
