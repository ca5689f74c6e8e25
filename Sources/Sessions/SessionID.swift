import Sealing

/// A session's id: 256 bits from the kernel (`getrandom`), written as 43 base64url characters in the
/// reader's cookie. It is a bearer secret: never logged, rendered or stored as is (the store names a
/// session by a keyed hash of it, `SessionBook.storeName`).
public struct SessionID: Sendable, Hashable, CustomStringConvertible {
  /// The id's length in bytes.
  public static let byteCount = 32

  let bytes: [UInt8]

  /// A new random id.
  public static func random() -> SessionID { SessionID(bytes: Sodium.randomBytes(byteCount)) }

  init(bytes: [UInt8]) { self.bytes = bytes }

  /// The id a cookie carries, or nil for anything that is not exactly 43 base64url characters.
  public init?(cookieValue: Substring) {
    guard cookieValue.utf8.count == 43,
      let bytes = Sodium.fromBase64URL(cookieValue, maxBytes: Self.byteCount),
      bytes.count == Self.byteCount
    else { return nil }
    self.bytes = bytes
  }

  /// The cookie value (43 base64url characters). Only the `Set-Cookie` header may carry it.
  public var cookieValue: String { Sodium.base64URL(bytes) }

  /// Never the id itself.
  public var description: String { "SessionID([redacted])" }
}
