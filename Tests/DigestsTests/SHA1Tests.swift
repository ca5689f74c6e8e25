import Digests
import TestSupport
import Testing

/// The digest that names scripts, against FIPS 180 test vectors.
@Suite(.timeLimit(.minutes(3))) struct SHA1Tests {
  @Test func matchesKnownVectors() {
    expectEqual(SHA1.hex([]), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    expectEqual(SHA1.hex(Array("abc".utf8)), "a9993e364706816aba3e25717850c26c9cd0d89d")
    expectEqual(
      SHA1.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    expectEqual(
      SHA1.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
      "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }
}
