/// Why a `redis://` URL was rejected. The descriptions never include the password.
public enum RedisURLError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The scheme is not `redis`.
  case unsupportedScheme(String)
  /// `rediss://` asks for TLS, which this client does not speak.
  case tlsNotSupported
  /// No host between `//` (or `@`) and the port or path.
  case missingHost
  /// The port is not a number from 1 to 65535.
  case invalidPort(String)
  /// The path is not `/` followed by a database number from 0 to 65535.
  case invalidDatabase(String)
  /// A `%` in the user or password is not followed by two hex digits, or decodes to invalid UTF-8.
  case invalidPercentEncoding
  /// The URL has a `?query` or `#fragment`, which carry no meaning here.
  case unexpectedQueryOrFragment

  /// A one-line explanation for startup errors.
  public var description: String {
    switch self {
    case .unsupportedScheme(let scheme): return "unsupported scheme '\(scheme)' (expected redis://)"
    case .tlsNotSupported: return "rediss:// (TLS) is not supported; use redis://"
    case .missingHost: return "the URL has no host"
    case .invalidPort(let port): return "invalid port '\(port)'"
    case .invalidDatabase(let db): return "invalid database '\(db)' (expected /0 to /65535)"
    case .invalidPercentEncoding: return "invalid percent-encoding in the user or password"
    case .unexpectedQueryOrFragment: return "the URL must not have a query or fragment"
    }
  }
}
