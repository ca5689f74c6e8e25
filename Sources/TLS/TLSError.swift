/// Why a TLS context or session failed. The message comes from OpenSSL (its reason string, or the
/// certificate check's verdict) and never holds key material.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What failed.
  public enum Kind: String, Sendable, Equatable {
    /// A CA, certificate or key file could not be loaded, or the key does not match the certificate.
    case configuration
    /// The server's certificate was refused: unknown issuer, expired, or issued for another name.
    case verification
    /// The peer broke the protocol or refused ours: not TLS at all, an alert, no shared version.
    case protocolFailure
  }

  /// What failed.
  public let kind: Kind
  /// OpenSSL's words for it, such as `certificate has expired` or `wrong version number`.
  public let message: String

  /// An error of `kind` saying `message`.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// `certificate refused: certificate has expired`.
  public var description: String {
    switch kind {
    case .configuration: return "TLS configuration: \(message)"
    case .verification: return "server certificate refused: \(message)"
    case .protocolFailure: return "TLS failed: \(message)"
    }
  }
}
