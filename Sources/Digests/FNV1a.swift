/// The 64-bit FNV-1a hash: fast, not cryptographic. Used for content-derived names and entity tags,
/// where a collision costs a cache miss, never a wrong answer to a hostile input.
public enum FNV1a {
  /// The hash of `bytes`.
  @inlinable
  public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x100_0000_01b3
    }
    return hash
  }
}
