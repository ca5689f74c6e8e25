/// A small, fast, seedable generator (SplitMix64) so catalogs and faults are reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose whole output is fixed by `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return SplitMix64.mix(state)
  }

  /// A double in [0, 1).
  public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

  /// An integer in `0..<bound` (bound > 0).
  public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool { unit() < p }

  /// The SplitMix64 finaliser: a strong 64-bit hash used to derive per-item values statelessly.
  public static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A hash of several values, for stateless derivations such as star-history days.
  public static func hash(_ a: UInt64, _ b: UInt64, _ c: UInt64 = 0) -> UInt64 {
    mix(mix(mix(a) ^ b) ^ c)
  }
}
