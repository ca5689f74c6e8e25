/// Why a `redis://` or `rediss://` URL, or a sentinel's `host:port`, was rejected. The descriptions never include the password.
public enum RedisURLError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The scheme is not `redis` or `rediss`.
  case unsupportedScheme(String)
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
  /// A sentinel master name that is empty, longer than 256 bytes, or holds a space or line break.
  case invalidMasterName

  /// A one-line explanation for startup errors.
  public var description: String {
    switch self {
    case .unsupportedScheme(let scheme):
      return "unsupported scheme '\(scheme)' (expected redis:// or rediss://)"
    case .missingHost: return "the URL has no host"
    case .invalidPort(let port): return "invalid port '\(port)'"
    case .invalidDatabase(let db): return "invalid database '\(db)' (expected /0 to /65535)"
    case .invalidPercentEncoding: return "invalid percent-encoding in the user or password"
    case .unexpectedQueryOrFragment: return "the URL must not have a query or fragment"
    case .invalidMasterName: return "the master name must be 1 to 256 bytes without spaces"
    }
  }
}
