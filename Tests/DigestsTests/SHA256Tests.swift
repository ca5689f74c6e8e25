import Digests
import Encodings
import TestSupport
import Testing

@Suite("SHA-256, base64 and PKCE", .timeLimit(.minutes(2)))
struct SHA256Tests {
  private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  @Test(
    "FIPS 180-2 examples and the padding boundaries",
    arguments: [
      ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
      ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
      (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ),
      (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
      ),
    ])
  func vectors(message: String, digest: String) {
    expectEqual(hex(SHA256.hash(Array(message.utf8))), digest)
  }

  @Test("one million times 'a' (FIPS 180-2 example 3)")
  func million() {
    let digest = SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
    expectEqual(hex(digest), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test("every length around a block boundary gives a distinct 32-byte digest")
  func lengths() {
    let digests = (50...130).map { SHA256.hash([UInt8](repeating: 0x61, count: $0)) }
    expectTrue(digests.allSatisfy { $0.count == 32 })
    expectEqual(Set(digests.map(hex)).count, digests.count)
  }

  @Test(
    "base64 is RFC 4648's section 10 vectors; base64url swaps + and / and drops padding",
    arguments: [
      ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"),
      ("foob", "Zm9vYg==", "Zm9vYg"),
      ("fooba", "Zm9vYmE=", "Zm9vYmE"), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ])
  func base64(text: String, standard: String, url: String) {
    expectEqual(Base64.encode(Array(text.utf8)), standard)
    expectEqual(Base64.urlEncode(Array(text.utf8)), url)
  }

  @Test("the URL alphabet has - and _ where the standard one has + and /")
  func urlAlphabet() {
    expectEqual(Base64.encode([0xFB, 0xFF]), "+/8=")
    expectEqual(Base64.urlEncode([0xFB, 0xFF]), "-_8")
  }

  @Test("PKCE S256 gives RFC 7636 appendix B's challenge")
  func rfc7636() {
    expectEqual(
      PKCEChallenge.s256(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }

  @Test("a verifier is 43 to 128 unreserved characters")
  func verifierShape() {
    expectTrue(PKCEChallenge.isValidVerifier(String(repeating: "a", count: 43)))
    expectTrue(PKCEChallenge.isValidVerifier(String(repeating: "~", count: 128)))
    expectTrue(!PKCEChallenge.isValidVerifier(String(repeating: "a", count: 42)))
    expectTrue(!PKCEChallenge.isValidVerifier(String(repeating: "a", count: 129)))
    expectTrue(!PKCEChallenge.isValidVerifier(String(repeating: "a", count: 42) + "+"))
    expectTrue(!PKCEChallenge.isValidVerifier(String(repeating: "a", count: 42) + "é"))
  }

  @Test("constant-time equality compares all bytes and lengths")
  func equality() {
    expectTrue(constantTimeEquals(Array("secret".utf8), Array("secret".utf8)))
    expectTrue(!constantTimeEquals(Array("secret".utf8), Array("secreT".utf8)))
    expectTrue(!constantTimeEquals(Array("secret".utf8), Array("secret!".utf8)))
    expectTrue(constantTimeEquals([], []))
  }
}
