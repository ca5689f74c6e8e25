import CSodium

/// The libsodium calls the sessions use, each over Swift arrays: random bytes, XChaCha20-Poly1305
/// sealing, key derivation, keyed BLAKE2b, constant-time comparison and base64url.
///
/// Every pointer below comes from `withUnsafe(Mutable)BufferPointer` (or an array passed where C
/// wants a pointer) on an array whose count was checked against the length passed with it, and none
/// escapes its call; that is why these unsafe calls are sound. They live here, in an engine target,
/// so that the domain above (`Sessions`) handles no raw pointers.
///
/// ```swift
/// let key = Sodium.randomBytes(Sodium.keyBytes)
/// let sealed = Sodium.seal(Array("record".utf8), associated: id, key: key)
/// let plain = Sodium.open(sealed, associated: id, key: key)  // nil if altered or another id
/// ```
public enum Sodium {
  /// `sodium_init` once per process (thread-safe, idempotent); false only if libsodium cannot start.
  static let ready: Bool = sodium_init() >= 0

  /// XChaCha20-Poly1305 key length.
  public static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
  /// XChaCha20-Poly1305 nonce length: 192 bits, so random nonces never collide in practice.
  static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
  /// Authentication tag length.
  static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

  /// `count` bytes from the kernel (`getrandom`), falling back to libsodium's generator (which reads
  /// the same kernel source) if the call is unavailable.
  public static func randomBytes(_ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var filled = 0
    out.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      while filled < count {
        let got = csodium_getrandom(base + filled, count - filled)
        if got > 0 {
          filled += got
        } else if got < 0, csodium_errno() == EINTR {
          continue
        } else {
          break
        }
      }
      if filled < count {
        _ = ready
        randombytes_buf(base + filled, count - filled)
        filled = count
      }
    }
    return out
  }

  /// `nonce ‖ ciphertext ‖ tag` of `plaintext` under `key`, authenticating `associated` too.
  public static func seal(_ plaintext: [UInt8], associated: [UInt8], key: [UInt8]) -> [UInt8] {
    precondition(ready && key.count == keyBytes, "sealing key must be \(keyBytes) bytes")
    let nonce = randomBytes(nonceBytes)
    var out = nonce + [UInt8](repeating: 0, count: plaintext.count + tagBytes)
    var written: UInt64 = 0
    out.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
        base + nonceBytes, &written, plaintext, UInt64(plaintext.count), associated, UInt64(associated.count),
        nil, nonce, key)
    }
    return out
  }

  /// The plaintext of `sealed`, or nil when it is too short, was altered, or was sealed under another
  /// key or associated data.
  public static func open(_ sealed: [UInt8], associated: [UInt8], key: [UInt8]) -> [UInt8]? {
    guard ready, key.count == keyBytes, sealed.count >= nonceBytes + tagBytes else { return nil }
    let nonce = Array(sealed[..<nonceBytes])
    let cipher = Array(sealed[nonceBytes...])
    let plainCount = cipher.count - tagBytes
    // At least one byte, so the buffer has an address even for an empty plaintext.
    var out = [UInt8](repeating: 0, count: max(1, plainCount))
    var written: UInt64 = 0
    let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
      &out, &written, nil, cipher, UInt64(cipher.count), associated, UInt64(associated.count), nonce, key)
    guard status == 0, written == UInt64(plainCount) else { return nil }
    return Array(out.prefix(plainCount))
  }

  /// A 32-byte subkey of `master` for one purpose (`crypto_kdf`, BLAKE2b), so that sealing, signing
  /// and naming never share a key.
  public static func deriveKey(_ master: [UInt8], id: UInt64, context: StaticString) -> [UInt8] {
    precondition(ready && master.count == Int(crypto_kdf_KEYBYTES), "master key must be 32 bytes")
    precondition(context.utf8CodeUnitCount == Int(crypto_kdf_CONTEXTBYTES), "kdf context is 8 bytes")
    var out = [UInt8](repeating: 0, count: 32)
    context.withUTF8Buffer { name in
      name.withMemoryRebound(to: CChar.self) { ctx in
        // Eight bytes by the precondition above, so the buffer has an address.
        guard let base = ctx.baseAddress else { return }
        _ = crypto_kdf_derive_from_key(&out, out.count, id, base, master)
      }
    }
    return out
  }

  /// A 32-byte keyed BLAKE2b digest of `message`.
  public static func keyedHash(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
    precondition(ready && key.count == 32, "hash key must be 32 bytes")
    var out = [UInt8](repeating: 0, count: 32)
    _ = crypto_generichash(&out, out.count, message, UInt64(message.count), key, key.count)
    return out
  }

  /// Whether `a` and `b` are equal, in time that depends only on their lengths.
  public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return sodium_memcmp(a, b, a.count) == 0
  }

  /// Base64url without padding (RFC 4648 §5), the form cookies and OAuth parameters use.
  public static func base64URL(_ bytes: [UInt8]) -> String {
    _ = ready
    let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
    let length = sodium_base64_encoded_len(bytes.count, variant)
    var out = [CChar](repeating: 0, count: length)
    _ = sodium_bin2base64(&out, length, bytes, bytes.count, variant)
    return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The bytes of base64url text without padding, or nil when it is anything else (at most `maxBytes`).
  public static func fromBase64URL(_ text: Substring, maxBytes: Int) -> [UInt8]? {
    _ = ready
    let utf8 = Array(text.utf8)
    guard !utf8.isEmpty, utf8.count <= (maxBytes * 4 + 2) / 3 else { return nil }
    var out = [UInt8](repeating: 0, count: maxBytes)
    var length = 0
    let consumed = utf8.withUnsafeBufferPointer { input in
      input.withMemoryRebound(to: CChar.self) { chars -> Int in
        guard let base = chars.baseAddress else { return -1 }
        var end: UnsafePointer<CChar>? = nil
        let status = sodium_base642bin(
          &out, out.count, base, chars.count, nil, &length, &end,
          Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING))
        // `end` points past the last byte read, inside `chars`: the whole text must be consumed.
        guard status == 0, let end else { return -1 }
        return base.distance(to: end)
      }
    }
    guard consumed == utf8.count, length <= maxBytes else { return nil }
    return Array(out.prefix(length))
  }
}
