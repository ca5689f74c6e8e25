/// The Merkle–Damgård padding and big-endian word reads that SHA-1 and SHA-256 share (FIPS 180-4
/// §5.1.1 and §5.2.1): one home for both digests.
public enum BlockPadding {
  /// `message`, a 0x80 byte, zeros up to 56 mod 64, then the length in bits modulo 2^64 (big-endian).
  public static func padded(_ message: [UInt8]) -> [UInt8] {
    var out = message
    out.reserveCapacity(message.count + 72)
    out.append(0x80)
    while out.count % 64 != 56 { out.append(0) }
    // Wrapping, as the standard defines the length field; never a trap.
    let bitLength = UInt64(truncatingIfNeeded: message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      out.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    return out
  }

  /// The 16 big-endian words of the 64-byte block of `padded` at `offset` into `w[0..<16]`.
  public static func loadWords(_ padded: [UInt8], at offset: Int, into w: inout [UInt32]) {
    for i in 0..<16 {
      let j = offset + i * 4
      w[i] =
        UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8
        | UInt32(padded[j + 3])
    }
  }
}
