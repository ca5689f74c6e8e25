import Sealing

/// The 32-byte secret behind every session: readers' records are sealed, the login ticket is sealed
/// and session ids are named in the store under keys derived from it, one subkey per purpose.
/// Its description never shows a byte of it.
///
/// ```swift
/// let key = try SessionKey(bytes: fileBytes)   // or SessionKey.random() (sessions end at a restart)
/// ```
public struct SessionKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// Why bytes cannot be a key.
  public struct LengthError: Error, CustomStringConvertible {
    /// How many bytes were given.
    public let count: Int
    /// Names the required length, never the bytes.
    public var description: String { "a session key is exactly 32 bytes (got \(count))" }
  }

  /// The key length in bytes.
  public static let length = 32

  /// Seals session records (XChaCha20-Poly1305).
  let records: [UInt8]
  /// Seals login tickets (the state and PKCE verifier cookie).
  let tickets: [UInt8]
  /// Names sessions in the store (keyed BLAKE2b of the id), so the store never holds a live id.
  let storeNames: [UInt8]
  /// Derives each session's CSRF token from its id.
  let csrf: [UInt8]
  /// Names accounts in the store (keyed BLAKE2b of the user id), so the store never holds a login.
  let accounts: [UInt8]

  /// A key from exactly 32 bytes (a `--session-key-file`).
  public init(bytes: [UInt8]) throws(LengthError) {
    guard bytes.count == Self.length else { throw LengthError(count: bytes.count) }
    records = Sodium.deriveKey(bytes, id: 1, context: "rsession")
    tickets = Sodium.deriveKey(bytes, id: 2, context: "rsession")
    storeNames = Sodium.deriveKey(bytes, id: 3, context: "rsession")
    csrf = Sodium.deriveKey(bytes, id: 4, context: "rsession")
    accounts = Sodium.deriveKey(bytes, id: 5, context: "rsession")
  }

  /// A fresh key from the kernel: sessions sealed under it end when the process does.
  public static func random() -> SessionKey {
    // 32 bytes by construction, so the length check cannot fail.
    try! SessionKey(bytes: Sodium.randomBytes(length))
  }

  /// Says what it is, never its bytes.
  public var description: String { "SessionKey([redacted])" }
  /// Same as `description`.
  public var debugDescription: String { description }
  /// A mirror without the bytes, so `dump` cannot show them.
  public var customMirror: Mirror { Mirror(self, children: []) }
}
