import TLS

/// Why a Redis call failed. Every failure of the client is one of these.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The server answered with an error reply (`ERR …`, `WRONGTYPE …`, `NOSCRIPT …`); the connection is fine.
  case server(String)
  /// No usable connection: refused, reset, closed by the server, or a recent failure still in its
  /// reconnect delay. The text says which. Commands in flight on the connection may or may not have run.
  case connectionLost(String)
  /// Connecting or a command took longer than its timeout. A timed-out connection is closed.
  case timeout(RedisTimeoutKind)
  /// The server sent bytes that are not RESP2 or break the parser's limits; the connection is closed.
  case protocolViolation(RESPProtocolError)
  /// TLS failed: a CA, certificate or key file could not be used, the server's certificate was
  /// refused (unknown issuer, expired, another name), or the server does not speak TLS. The client
  /// never falls back to plain text.
  case tls(TLSError)
  /// `AUTH` was refused (wrong password or user), or the server requires a password none was given for.
  case authFailed(String)
  /// Every pooled connection stayed busy for the pool timeout, or too many callers were already waiting.
  case poolExhausted
  /// The calling task was cancelled. A command already sent may still run on the server.
  case cancelled
  /// The client was shut down.
  case shutDown

  /// A one-line explanation for logs; it never contains a password or a value.
  public var description: String {
    switch self {
    case .server(let message): return "redis error reply: \(message)"
    case .connectionLost(let reason): return "redis connection lost: \(reason)"
    case .timeout(.handshake):
      return "redis TLS handshake timeout (does the server speak TLS on this port?)"
    case .timeout(let kind): return "redis \(kind) timeout"
    case .protocolViolation(let error): return "redis protocol violation: \(error)"
    case .tls(let error): return "redis \(error)"
    case .authFailed(let message): return "redis authentication failed: \(message)"
    case .poolExhausted: return "redis pool exhausted"
    case .cancelled: return "redis call cancelled"
    case .shutDown: return "redis client shut down"
    }
  }
}

/// Which deadline a `RedisError.timeout` missed.
public enum RedisTimeoutKind: String, Sendable, Equatable {
  /// Opening the TCP connection plus the `AUTH`/`SELECT`/`ROLE` handshake.
  case connect
  /// The TLS handshake, within the connect timeout: the server accepted TCP but did not finish
  /// TLS (a plain-text server on a `rediss://` URL, or a stalled one).
  case handshake
  /// Waiting for a command's (or a pipeline's) replies.
  case command
}
