import Sealing
import TestSupport
import Testing

@Suite("Sodium: sealing, subkeys, keyed hashes and base64url over plain arrays", .timeLimit(.minutes(1)))
struct SodiumTests {
  let key = Sodium.randomBytes(Sodium.keyBytes)
  let id = Array("session-id".utf8)

  @Test func sealedBytesOpenOnlyUnderTheirKeyAndAssociatedData() {
    let plain = Array("a reader's record".utf8)
    let sealed = Sodium.seal(plain, associated: id, key: key)
    expectTrue(sealed.count > plain.count)
    expectTrue(
      !sealed.indices.dropLast(plain.count - 1).contains { Array(sealed[$0..<$0 + plain.count]) == plain })
    expectEqual(Sodium.open(sealed, associated: id, key: key), plain)
    expectEqual(Sodium.open(sealed, associated: Array("another-id".utf8), key: key), nil)
    expectEqual(Sodium.open(sealed, associated: id, key: Sodium.randomBytes(Sodium.keyBytes)), nil)
    expectEqual(Sodium.open(sealed, associated: id, key: Array(key.dropLast())), nil)
    for index in [0, sealed.count / 2, sealed.count - 1] {
      var altered = sealed
      altered[index] ^= 1
      expectEqual(Sodium.open(altered, associated: id, key: key), nil)
    }
    expectEqual(Sodium.open(Array(sealed.prefix(39)), associated: id, key: key), nil)
    expectEqual(Sodium.open([], associated: id, key: key), nil)
    // Each seal draws a fresh nonce; an empty plaintext seals and opens too.
    expectTrue(Sodium.seal(plain, associated: id, key: key) != sealed)
    expectEqual(Sodium.open(Sodium.seal([], associated: [], key: key), associated: [], key: key), [])
  }

  @Test func subkeysAndKeyedHashesDependOnEveryInput() {
    let first = Sodium.deriveKey(key, id: 1, context: "rsession")
    expectTrue(first.count == 32 && first != key)
    expectEqual(first, Sodium.deriveKey(key, id: 1, context: "rsession"))
    expectTrue(first != Sodium.deriveKey(key, id: 2, context: "rsession"))
    expectTrue(first != Sodium.deriveKey(key, id: 1, context: "othernam"))
    let hash = Sodium.keyedHash(id, key: first)
    expectTrue(hash.count == 32 && hash == Sodium.keyedHash(id, key: first))
    expectTrue(hash != Sodium.keyedHash(id, key: Sodium.deriveKey(key, id: 2, context: "rsession")))
    expectTrue(hash != Sodium.keyedHash(Array("session-ie".utf8), key: first))
  }

  @Test func constantTimeEqualCompares() {
    expectTrue(Sodium.constantTimeEqual([], []))
    expectTrue(Sodium.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    expectTrue(!Sodium.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    expectTrue(!Sodium.constantTimeEqual([1, 2, 3], [1, 2]))
  }

  @Test func base64URLRoundTripsAndRejectsEverythingElse() {
    for count in [1, 2, 3, 16, 32] {
      let bytes = Sodium.randomBytes(count)
      let text = Sodium.base64URL(bytes)
      expectTrue(!text.contains("=") && !text.contains("+") && !text.contains("/"))
      expectEqual(Sodium.fromBase64URL(text[...], maxBytes: count), bytes)
      expectEqual(Sodium.fromBase64URL(text[...], maxBytes: count - 1), nil)
    }
    expectEqual(Sodium.base64URL([0xfb, 0xff]), "-_8")
    for junk in ["", "-_8=", "+/8", "a b", "ab\0c", "é", "A"] {
      expectEqual(Sodium.fromBase64URL(junk[...], maxBytes: 32), nil, "\(junk)")
    }
  }

  @Test func randomBytesHaveTheAskedLengthAndDiffer() {
    expectEqual(Sodium.randomBytes(0), [])
    let a = Sodium.randomBytes(32)
    expectTrue(a.count == 32 && a != Sodium.randomBytes(32))
  }
}
